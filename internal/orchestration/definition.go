package orchestration

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Limits of a definition.
const (
	// MaxDefinitionBytes caps the JSON of one definition.
	MaxDefinitionBytes = 256 << 10
	// MaxNodes caps the nodes of one definition.
	MaxNodes = 200
)

// root is the path prefix of every field error: the definition is the "definition" field
// of the API's request body.
const root = "definition"

// nodeIDPattern keeps node ids usable as steps.<id> in expressions.
var nodeIDPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// Definition is a parsed, validated workflow definition: a graph of nodes without cycles,
// all reachable from the start node.
type Definition struct {
	// Start is the id of the first node to run.
	Start string
	// Nodes are the nodes in the order they were written.
	Nodes []*Node
	byID  map[string]*Node
}

// Node is one node of a definition.
type Node struct {
	// ID is the node's id, unique in the definition.
	ID string
	// Name is an optional label for people (shown in the Temporal UI).
	Name string
	// Kind is the node's kind name.
	Kind string
	// Index is the node's position in the definition's nodes array.
	Index int
	// next maps a branch name ("" for a kind without branches) to the next node's id.
	next map[string]string
	step Step
}

// Node returns the node with the given id.
func (d *Definition) Node(id string) (*Node, bool) {
	n, ok := d.byID[id]
	return n, ok
}

// Plan evaluates the node against env and says what the workflow must do to run it.
func (n *Node) Plan(env Env) (Action, error) {
	return n.step.Plan(env)
}

// Next returns the id of the node that follows the given branch ("" for a kind without
// branches), and false when the definition routes that branch nowhere: for most kinds the
// run then ends; for a rejected approval it fails.
func (n *Node) Next(branch string) (string, bool) {
	id, ok := n.next[branch]
	return id, ok
}

// Label is the node's name, or its id when it has none.
func (n *Node) Label() string {
	if n.Name != "" {
		return n.Name
	}
	return n.ID
}

// Parse reads and validates a definition with the builtin kinds.
func Parse(raw []byte) (*Definition, error) {
	return Builtin().Parse(raw)
}

// Parse reads a definition from JSON and validates it: the JSON shape, each node's config
// by its kind (expressions compiled and type-checked), then the graph (ids unique, every
// "next" naming a node, no cycle, every node reachable from the start, expressions reading
// only steps that run before them). Problems are returned together as a *ValidationError
// keyed by field path. Parse is deterministic and has no side effects, so the Execution
// workflow calls it too.
func (r *Registry) Parse(raw []byte) (*Definition, error) {
	p := &parser{reg: r, c: &templateCompiler{errs: FieldErrors{}}}
	d := p.parse(raw)
	if len(p.c.errs) > 0 {
		return nil, &ValidationError{Fields: p.c.errs}
	}
	return d, nil
}

type parser struct {
	reg *Registry
	c   *templateCompiler
	// exps holds the expressions of each node, by node index, for the step-reference check.
	exps map[int][]*Expression
	// nextPaths remembers where each route was written, by node index and branch.
	nextPaths map[int]map[string]string
	// badRoutes is set when some "next" could not be read: reachability is then unknown.
	badRoutes bool
}

func (p *parser) errs() FieldErrors { return p.c.errs }

func (p *parser) parse(raw []byte) *Definition {
	if len(raw) > MaxDefinitionBytes {
		p.errs().Add(root, "is larger than %d bytes", MaxDefinitionBytes)
		return nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		p.errs().Add(root, "must be a JSON object with a \"nodes\" array%s", jsonProblem(err))
		return nil
	}
	for _, name := range sortedKeysOf(top) {
		if name != "start" && name != "nodes" {
			p.errs().Add(root+"."+name, "unknown field")
		}
	}
	d := &Definition{byID: map[string]*Node{}}
	if s, ok := top["start"]; ok && string(s) != "null" {
		if err := json.Unmarshal(s, &d.Start); err != nil {
			p.errs().Add(root+".start", "must be a node id (string)")
		} else if d.Start == "" {
			p.errs().Add(root+".start", "must not be empty")
		}
	}
	var rawNodes []json.RawMessage
	nodesRaw, ok := top["nodes"]
	switch {
	case !ok || string(nodesRaw) == "null":
		p.errs().Add(root+".nodes", "is required")
		return nil
	case json.Unmarshal(nodesRaw, &rawNodes) != nil:
		p.errs().Add(root+".nodes", "must be an array of nodes")
		return nil
	case len(rawNodes) == 0:
		p.errs().Add(root+".nodes", "must have at least one node")
		return nil
	case len(rawNodes) > MaxNodes:
		p.errs().Add(root+".nodes", "must have at most %d nodes", MaxNodes)
		return nil
	}
	p.exps = map[int][]*Expression{}
	p.nextPaths = map[int]map[string]string{}
	for i, rn := range rawNodes {
		if n := p.node(i, rn); n != nil {
			d.Nodes = append(d.Nodes, n)
		}
	}
	if len(d.Nodes) != len(rawNodes) {
		return nil // a node without a usable id or kind: the graph cannot be checked
	}
	p.graph(d)
	return d
}

// node reads one node; nil when its id or kind is unusable.
func (p *parser) node(i int, raw json.RawMessage) *Node {
	path := fmt.Sprintf("%s.nodes[%d]", root, i)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		p.errs().Add(path, "must be an object with \"id\" and \"kind\"")
		return nil
	}
	for _, name := range sortedKeysOf(fields) {
		switch name {
		case "id", "name", "kind", "config", "next":
		default:
			p.errs().Add(path+"."+name, "unknown field")
		}
	}
	n := &Node{Index: i}
	var usable bool
	n.ID, usable = p.requiredString(path+".id", fields["id"])
	if usable && !nodeIDPattern.MatchString(n.ID) {
		p.errs().Add(path+".id", "must start with a letter and hold only letters, digits and _ (at most 64)")
	}
	if v, ok := fields["name"]; ok && string(v) != "null" {
		if json.Unmarshal(v, &n.Name) != nil {
			p.errs().Add(path+".name", "must be a string")
		} else if len(n.Name) > 200 {
			p.errs().Add(path+".name", "must be at most 200 characters")
		}
	}
	kindName, ok := p.requiredString(path+".kind", fields["kind"])
	if !ok {
		return nil
	}
	kind, known := p.reg.Kind(kindName)
	if !known {
		p.errs().Add(path+".kind", "unknown kind %q (known: %s)", kindName, p.reg.namesText())
		return nil
	}
	n.Kind = kindName
	n.next = p.next(i, path+".next", fields["next"], kind.Routes())

	before := len(p.c.exps)
	cr := newConfigReader(path+".config", fields["config"], p.c)
	if cr.fields != nil || !p.errs().Has(cr.path) {
		n.step = kind.Compile(cr)
		cr.Finish()
	}
	p.exps[i] = p.c.exps[before:]
	if !usable {
		return nil
	}
	return n
}

func (p *parser) requiredString(path string, raw json.RawMessage) (string, bool) {
	if raw == nil || string(raw) == "null" {
		p.errs().Add(path, "is required")
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		p.errs().Add(path, "must be a string")
		return "", false
	}
	if s == "" {
		p.errs().Add(path, "must not be empty")
		return "", false
	}
	return s, true
}

// next reads a node's routes: a node id for a kind without branches, an object of branch
// names to node ids for a kind with branches; absent means the run ends after this node.
func (p *parser) next(i int, path string, raw json.RawMessage, routes Routes) map[string]string {
	defer func() { p.badRoutes = p.badRoutes || p.errs().Has(path) }()
	out := map[string]string{}
	paths := map[string]string{}
	p.nextPaths[i] = paths
	absent := raw == nil || string(raw) == "null"
	if len(routes.Branches) == 0 {
		if absent {
			return out
		}
		var id string
		if json.Unmarshal(raw, &id) != nil {
			p.errs().Add(path, "must be a node id (string)")
			return out
		}
		if id == "" {
			p.errs().Add(path, "must not be empty (omit next to end the run)")
			return out
		}
		out[""], paths[""] = id, path
		return out
	}
	want := strings.Join(routes.Branches, ", ")
	var obj map[string]json.RawMessage
	if !absent {
		if json.Unmarshal(raw, &obj) != nil || obj == nil {
			p.errs().Add(path, "must be an object with the branches %s", want)
			return out
		}
	}
	allowed := map[string]bool{}
	for _, b := range routes.Branches {
		allowed[b] = true
	}
	for _, b := range sortedKeysOf(obj) {
		if !allowed[b] {
			p.errs().Add(path+"."+b, "unknown branch (branches: %s)", want)
		}
	}
	for _, b := range routes.Branches {
		bp := path + "." + b
		v, ok := obj[b]
		if !ok || string(v) == "null" {
			if routes.AllRequired {
				p.errs().Add(bp, "is required")
			}
			continue
		}
		var id string
		if json.Unmarshal(v, &id) != nil {
			p.errs().Add(bp, "must be a node id (string)")
			continue
		}
		if id == "" {
			p.errs().Add(bp, "must not be empty")
			continue
		}
		out[b], paths[b] = id, bp
	}
	return out
}

// graph checks ids, routes, reachability, cycles and step references, in that order.
func (p *parser) graph(d *Definition) {
	duplicates := false
	for _, n := range d.Nodes {
		if prev, dup := d.byID[n.ID]; dup {
			p.errs().Add(fmt.Sprintf("%s.nodes[%d].id", root, n.Index), "duplicate id %q (also nodes[%d])", n.ID, prev.Index)
			duplicates = true
			continue
		}
		d.byID[n.ID] = n
	}
	if d.Start == "" {
		d.Start = d.Nodes[0].ID
	} else if _, ok := d.byID[d.Start]; !ok {
		p.errs().Add(root+".start", "no node has the id %q", d.Start)
		return
	}
	dangling := false
	for _, n := range d.Nodes {
		for _, b := range n.branchOrder() {
			if _, ok := d.byID[n.next[b]]; !ok {
				p.errs().Add(p.nextPaths[n.Index][b], "no node has the id %q", n.next[b])
				dangling = true
			}
		}
	}
	if dangling || duplicates || p.badRoutes {
		return
	}
	if p.cycles(d) {
		return
	}
	reach := d.reachableFrom(d.Start)
	for _, n := range d.Nodes {
		if !reach[n.ID] {
			p.errs().Add(fmt.Sprintf("%s.nodes[%d]", root, n.Index), "unreachable from the start node %q", d.Start)
		}
	}
	p.stepRefs(d)
}

// branchOrder lists the node's routed branches in a fixed order.
func (n *Node) branchOrder() []string {
	return sortedKeysOf(n.next)
}

// cycles reports every route that closes a cycle; true when there is one.
func (p *parser) cycles(d *Definition) bool {
	const (
		unseen = iota
		active
		done
	)
	state := map[string]int{}
	var stack []string
	found := false
	var visit func(n *Node)
	visit = func(n *Node) {
		state[n.ID] = active
		stack = append(stack, n.ID)
		for _, b := range n.branchOrder() {
			next := d.byID[n.next[b]]
			switch state[next.ID] {
			case active:
				start := 0
				for i, id := range stack {
					if id == next.ID {
						start = i
					}
				}
				loop := append(append([]string{}, stack[start:]...), next.ID)
				p.errs().Add(p.nextPaths[n.Index][b], "creates a cycle: %s", strings.Join(loop, " → "))
				found = true
			case unseen:
				visit(next)
			}
		}
		stack = stack[:len(stack)-1]
		state[n.ID] = done
	}
	for _, n := range d.Nodes {
		if state[n.ID] == unseen {
			visit(n)
		}
	}
	return found
}

// reachableFrom returns the ids of the nodes reachable from id, itself included.
func (d *Definition) reachableFrom(id string) map[string]bool {
	seen := map[string]bool{id: true}
	queue := []string{id}
	for len(queue) > 0 {
		n := d.byID[queue[0]]
		queue = queue[1:]
		for _, b := range n.branchOrder() {
			if t := n.next[b]; !seen[t] {
				seen[t] = true
				queue = append(queue, t)
			}
		}
	}
	return seen
}

// stepRefs checks that every steps.<id> an expression reads names a node that can run
// before the expression's node (a node from which it is reachable).
func (p *parser) stepRefs(d *Definition) {
	for _, n := range d.Nodes {
		for _, e := range p.exps[n.Index] {
			for _, ref := range e.refs {
				target, ok := d.byID[ref]
				switch {
				case !ok:
					p.errs().Add(e.Path, "steps.%s: no node has the id %q", ref, ref)
				case ref == n.ID:
					p.errs().Add(e.Path, "steps.%s: a node cannot read its own output", ref)
				case !d.reachableFrom(target.ID)[n.ID]:
					p.errs().Add(e.Path, "steps.%s: node %q does not run before %q", ref, ref, n.ID)
				}
			}
		}
	}
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf(" (invalid JSON at byte %d)", se.Offset)
	}
	return ""
}

func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	//workflowcheck:ignore (sorted below)
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
