package orchestration

import (
	"sort"
	"strings"
	"time"
)

// Kind is one node kind: it reads and checks a node's config when a definition is saved
// and compiles it into a Step the Execution workflow runs. Adding a kind is one file with
// a Kind and its Step, plus one line in Builtin.
type Kind interface {
	// Name is the value of the node's "kind" field.
	Name() string
	// Routes says how the node's "next" may branch.
	Routes() Routes
	// Compile reads the node's config from r, which records every problem under the
	// config's path; the returned Step is used only when r recorded no problem.
	Compile(r *ConfigReader) Step
}

// Routes says how a kind's "next" may branch.
type Routes struct {
	// Branches are the outcome names "next" routes as an object ({"then": "a", "else":
	// "b"}); empty for a kind with one way out, whose "next" is a node id.
	Branches []string
	// AllRequired makes every branch mandatory.
	AllRequired bool
}

// Step is a node's compiled config.
type Step interface {
	// Plan evaluates the step's expressions against env (a pure function of it) and
	// says what the workflow must do to run the node.
	Plan(env Env) (Action, error)
}

// Action is what the Execution workflow does to run a node. The set is closed: a new kind
// reuses one of these, and only a kind needing a new sort of effect changes the workflow.
type Action interface{ isAction() }

// Done is a node whose result is already known: its output, and the branch to follow ("" for
// a kind without branches). Transform and condition nodes are evaluated in workflow code.
type Done struct {
	Output any
	Branch string
}

// CallHTTP is a node that makes one outbound request in an activity, retried by its policy.
type CallHTTP struct {
	Request HTTPRequest
	Retry   RetryPolicy
}

// Sleep is a node that waits on a durable timer.
type Sleep struct {
	Duration time.Duration
}

// AwaitApproval is a node that waits for a person's decision. It follows the branch
// "approve" or "reject"; a rejection without a route fails the execution.
type AwaitApproval struct {
	ActionLabel string
	AssignTo    string
	Data        map[string]any
	// Timeout, when positive, resolves the approval as rejected after that long.
	Timeout time.Duration
}

func (Done) isAction()          {}
func (CallHTTP) isAction()      {}
func (Sleep) isAction()         {}
func (AwaitApproval) isAction() {}

// Registry holds the node kinds a definition may use.
type Registry struct {
	kinds map[string]Kind
}

// NewRegistry returns a registry of the given kinds.
func NewRegistry(kinds ...Kind) *Registry {
	r := &Registry{kinds: make(map[string]Kind, len(kinds))}
	for _, k := range kinds {
		r.kinds[k.Name()] = k
	}
	return r
}

// Builtin returns the registry of the kinds svc ships. This is the one list of kinds.
func Builtin() *Registry {
	return NewRegistry(HTTP{}, Transform{}, Condition{}, Delay{}, HumanApproval{}, AI{})
}

// Kind returns the kind with the given name.
func (r *Registry) Kind(name string) (Kind, bool) {
	k, ok := r.kinds[name]
	return k, ok
}

// Names lists the registered kind names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.kinds))
	//workflowcheck:ignore (sorted below)
	for n := range r.kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (r *Registry) namesText() string { return strings.Join(r.Names(), ", ") }
