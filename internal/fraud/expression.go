package fraud

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
)

// Bounds of one rule expression. expr has no unbounded loops, but a predicate builtin over a
// large range or a long chain of them can still take time and memory on the request path, so
// the source, the tree, the loops and the memory of an evaluation are bounded.
const (
	// MaxExpressionLength caps the source of one expression, in bytes.
	MaxExpressionLength = 4096
	// MaxExpressionNodes caps the syntax tree of one expression.
	MaxExpressionNodes = 1000
	// MaxExpressionLoops caps the predicate builtins (map, filter, all, ...) of one expression;
	// none may sit inside another, so the work stays linear in the data.
	MaxExpressionLoops = 5
	// ExpressionMemoryBudget caps what one evaluation may allocate, in expr's units.
	ExpressionMemoryBudget = 50_000
)

// roots are the variables of Env.
var roots = []string{"transaction", "event", "customer", "device", "velocity", "lists", "attributes", "now"}

// divName is the function every '/' is rewritten to, so that a division by zero is a rule
// error instead of an infinity that quietly passes a comparison.
const divName = "__div"

func exprOptions(patch bool) []expr.Option {
	opts := []expr.Option{
		expr.Env(Env{}),
		expr.DisableBuiltin("now"),
		expr.Timezone("UTC"),
		expr.MaxNodes(MaxExpressionNodes),
		expr.Function(divName, safeDiv),
	}
	if patch {
		opts = append(opts, expr.Patch(divPatcher{}))
	}
	return opts
}

// safeDiv is '/' that refuses a zero divisor.
func safeDiv(params ...any) (any, error) {
	if len(params) != 2 {
		return nil, errors.New("division takes two numbers")
	}
	a, okA := toFloat(params[0])
	b, okB := toFloat(params[1])
	switch {
	case !okA || !okB:
		return nil, fmt.Errorf("cannot divide %T by %T", params[0], params[1])
	case b == 0:
		return nil, errors.New("division by zero")
	}
	return a / b, nil
}

func toFloat(v any) (float64, bool) {
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Float32, reflect.Float64:
		return r.Float(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(r.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(r.Uint()), true
	}
	return 0, false
}

// divPatcher rewrites a / b into __div(a, b).
type divPatcher struct{}

func (divPatcher) Visit(node *ast.Node) {
	if b, ok := (*node).(*ast.BinaryNode); ok && b.Operator == "/" {
		ast.Patch(node, &ast.CallNode{Callee: &ast.IdentifierNode{Value: divName}, Arguments: []ast.Node{b.Left, b.Right}})
	}
}

// program is one compiled expression with what it reads.
type program struct {
	source string
	prog   *vm.Program
	// features are the velocity features read; lists the value lists; vars the paths of
	// the data read (transaction.amount, velocity.customer.count_1h), all sorted.
	features []Feature
	lists    []string
	vars     []string
}

// compileExpr compiles src. wantBool requires a boolean result; knownLists, when not nil,
// are the value lists that exist.
func compileExpr(src string, wantBool bool, knownLists []string) (p *program, err error) {
	if strings.TrimSpace(src) == "" {
		return nil, errors.New("expression is empty")
	}
	if len(src) > MaxExpressionLength {
		return nil, fmt.Errorf("expression is longer than %d bytes", MaxExpressionLength)
	}
	defer func() {
		// expr's parser and checker are not meant to panic; should one, the rule is refused
		// rather than the server failing.
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("expression cannot be compiled: %v", r)
		}
	}()
	// The first compile checks the expression as written, so type errors name '/' and not the
	// rewritten call; the second is what runs.
	checked, err := expr.Compile(src, exprOptions(false)...)
	if err != nil {
		return nil, errors.New(oneLine(err))
	}
	node := checked.Node()
	if t := node.Type(); wantBool && t != nil && t.Kind() != reflect.Bool && t.Kind() != reflect.Interface {
		return nil, fmt.Errorf("expression must give a boolean, gives %s", t)
	}
	refs := &refWalker{}
	ast.Walk(&node, refs)
	if err := refs.check(knownLists); err != nil {
		return nil, err
	}
	prog, err := expr.Compile(src, exprOptions(true)...)
	if err != nil {
		return nil, errors.New(oneLine(err))
	}
	return &program{source: src, prog: prog, features: refs.featureList(), lists: refs.listNames(), vars: refs.varPaths()}, nil
}

// run evaluates the program against env (an Env stored in an interface once per evaluation).
func (p *program) run(machine *vm.VM, env any) (any, error) {
	machine.MemoryBudget = ExpressionMemoryBudget
	v, err := machine.Run(p.prog, env)
	if err != nil {
		return nil, errors.New(oneLine(err))
	}
	return v, nil
}

// oneLine renders an expr error without its multi-line source snippet.
func oneLine(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		if fe.Line > 0 {
			return fmt.Sprintf("%s (line %d, column %d)", fe.Message, fe.Line, fe.Column+1)
		}
		return fe.Message
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

// refWalker collects what an expression reads and checks that velocity features and value
// lists are named literally, so the features a rule set needs are known when it is saved.
type refWalker struct {
	loops, nestedLoops int
	velocityIdents     int
	listIdents         int
	features           []Feature
	featureErrs        []string
	lists              []string
	paths              map[string]bool
}

func (w *refWalker) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.PredicateNode:
		w.loops++
		inner := &refWalker{}
		ast.Walk(&n.Node, inner)
		if inner.loops > 0 {
			w.nestedLoops++
		}
	case *ast.IdentifierNode:
		switch n.Value {
		case "velocity":
			w.velocityIdents++
		case "lists":
			w.listIdents++
		}
		if slices.Contains(roots, n.Value) {
			w.addPath(n.Value)
		}
	case *ast.CallNode:
		// A method called on a value (transaction.occurredAt.Hour()) is not data the rule read:
		// its receiver is, and stays a path; the method value itself cannot be reported.
		if m, ok := n.Callee.(*ast.MemberNode); ok {
			if path, ok := staticPath(m); ok {
				delete(w.paths, strings.Join(path, "."))
				w.addPath(strings.Join(path[:len(path)-1], "."))
			}
		}
	case *ast.MemberNode:
		path, ok := staticPath(n)
		if !ok {
			return
		}
		w.addPath(strings.Join(path, "."))
		switch {
		case len(path) == 3 && path[0] == "velocity":
			f, err := ParseFeature(path[1], path[2])
			if err != nil {
				w.featureErrs = append(w.featureErrs, err.Error())
			} else {
				w.features = append(w.features, f)
			}
		case len(path) == 2 && path[0] == "lists":
			w.lists = append(w.lists, path[1])
		}
	}
}

func (w *refWalker) addPath(p string) {
	if w.paths == nil {
		w.paths = map[string]bool{}
	}
	w.paths[p] = true
}

// check reports the first problem with what the expression reads.
func (w *refWalker) check(knownLists []string) error {
	switch {
	case w.nestedLoops > 0:
		return errors.New("expression nests a loop (map, filter, all, ...) inside another; use one level")
	case w.loops > MaxExpressionLoops:
		return fmt.Errorf("expression has more than %d loops (map, filter, all, ...)", MaxExpressionLoops)
	case len(w.featureErrs) > 0:
		return errors.New(w.featureErrs[0])
	case w.velocityIdents != len(w.features):
		return errors.New("velocity features must be named literally, as velocity.<dimension>.<feature> (for example velocity.customer.count_1h)")
	case w.listIdents != len(w.lists):
		return errors.New("value lists must be named literally, as lists.<name>")
	}
	if knownLists != nil {
		for _, l := range w.lists {
			if !slices.Contains(knownLists, l) {
				return fmt.Errorf("unknown value list %q", l)
			}
		}
	}
	return nil
}

func (w *refWalker) featureList() []Feature {
	seen := map[string]Feature{}
	for _, f := range w.features {
		seen[f.Path()] = f
	}
	return sortedFeatures(seen)
}

func sortedFeatures(m map[string]Feature) []Feature {
	out := make([]Feature, 0, len(m))
	for _, f := range m {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path() < out[j].Path() })
	return out
}

func (w *refWalker) listNames() []string {
	out := slices.Clone(w.lists)
	slices.Sort(out)
	return slices.Compact(out)
}

// varPaths are the longest paths read, without the value lists (which can be long): what a
// hit rule reports as the variables it used.
func (w *refWalker) varPaths() []string {
	var out []string
	for p := range w.paths {
		if p == "lists" || strings.HasPrefix(p, "lists.") {
			continue
		}
		longer := false
		for q := range w.paths {
			if strings.HasPrefix(q, p+".") {
				longer = true
				break
			}
		}
		if !longer {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// staticPath returns root.a.b for a member chain with constant names rooted at an Env
// variable, and false for anything else (an index by a computed value, a method result).
func staticPath(n *ast.MemberNode) ([]string, bool) {
	prop, ok := n.Property.(*ast.StringNode)
	if !ok {
		return nil, false
	}
	var head []string
	switch inner := n.Node.(type) {
	case *ast.IdentifierNode:
		if !slices.Contains(roots, inner.Value) {
			return nil, false
		}
		head = []string{inner.Value}
	case *ast.MemberNode:
		if head, ok = staticPath(inner); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	return append(head, prop.Value), true
}
