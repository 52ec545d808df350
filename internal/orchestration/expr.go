package orchestration

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
)

// Bounds of one expression. Workflow code evaluates expressions, and a workflow task must
// finish well within Temporal's one-second deadlock detection, so the work one expression
// can do is bounded: its length, its loops (map, filter, reduce and the other builtins
// taking a predicate: at most MaxExpressionLoops, never one inside another, so the work is
// linear in the data) and the memory it may allocate.
const (
	// MaxExpressionLength caps the source of one expression, in bytes.
	MaxExpressionLength = 4096
	// MaxExpressionLoops caps the predicate builtins of one expression.
	MaxExpressionLoops = 10
	// ExpressionMemoryBudget caps what one evaluation may allocate, in expr's units
	// (array elements, map entries, string bytes of repeat).
	ExpressionMemoryBudget = 100_000
)

// Env is what expressions read. It holds only data, so evaluating an expression is a pure
// function of it: the Execution workflow builds it from the run's inputs, the outputs of
// the steps that ran before and the workflow's own clock (workflow.Now), never time.Now.
type Env struct {
	// Inputs are the execution's inputs ("inputs.amount").
	Inputs map[string]any `expr:"inputs"`
	// Steps holds the outputs of the steps that already ran, by node id ("steps.fetch.output.body").
	Steps map[string]StepState `expr:"steps"`
	// Execution is the run's metadata ("execution.externalId").
	Execution ExecutionMeta `expr:"execution"`
	// Now is the workflow's time when the node started ("now"), in UTC.
	Now time.Time `expr:"now"`
}

// StepState is what expressions see of a step that ran.
type StepState struct {
	// Output is the step's output as JSON values.
	Output any `expr:"output" json:"output"`
}

// ExecutionMeta is the execution metadata expressions may read.
type ExecutionMeta struct {
	ID              string `expr:"id" json:"id"`
	OrgID           string `expr:"orgId" json:"orgId"`
	WorkflowID      string `expr:"workflowId" json:"workflowId"`
	WorkflowSlug    string `expr:"workflowSlug" json:"workflowSlug"`
	WorkflowVersion int    `expr:"workflowVersion" json:"workflowVersion"`
	ExternalID      string `expr:"externalId" json:"externalId"`
	StartedBy       string `expr:"startedBy" json:"startedBy"`
}

// Expression is one compiled expression of a definition.
type Expression struct {
	// Source is the expression as written.
	Source string
	// Path is the field it was read from, used in evaluation errors.
	Path    string
	program *vm.Program
	// refs are the node ids read through steps.<id>, in source order.
	refs []string
}

// exprOptions are the compile options of every expression. The language is expr's, with
// the builtins that would make evaluation depend on anything but Env removed or replaced:
// now() is gone (use the variable now, the workflow's clock), date() without a zone is
// UTC, and keys(), values() and toPairs() return their results in key order instead of
// Go's random map order.
func exprOptions() []expr.Option {
	return []expr.Option{
		expr.Env(Env{}),
		expr.DisableBuiltin("now"),
		expr.Timezone("UTC"),
		expr.MaxNodes(2000),
		expr.Function("keys", sortedKeys),
		expr.Function("values", sortedValues),
		expr.Function("toPairs", sortedPairs),
	}
}

// compileExpression compiles src read from the field at path.
func compileExpression(path, src string, asBool bool) (e *Expression, err error) {
	if strings.TrimSpace(src) == "" {
		return nil, errors.New("expression is empty")
	}
	if len(src) > MaxExpressionLength {
		return nil, fmt.Errorf("expression is longer than %d bytes", MaxExpressionLength)
	}
	defer func() {
		// expr's parser and checker are not meant to panic; should one, the definition is
		// refused rather than the server failing.
		if r := recover(); r != nil {
			e, err = nil, fmt.Errorf("expression cannot be compiled: %v", r)
		}
	}()
	program, err := expr.Compile(src, exprOptions()...)
	if err != nil {
		return nil, errors.New(oneLine(err))
	}
	node := program.Node()
	if t := node.Type(); asBool && t != nil && t.Kind() != reflect.Bool && t.Kind() != reflect.Interface {
		return nil, fmt.Errorf("expression must give a boolean, gives %s", t)
	}
	loops := &loopCounter{}
	ast.Walk(&node, loops)
	switch {
	case loops.nested:
		return nil, errors.New("expression nests a loop (map, filter, reduce, ...) inside another; use one level")
	case loops.n > MaxExpressionLoops:
		return nil, fmt.Errorf("expression has more than %d loops (map, filter, reduce, ...)", MaxExpressionLoops)
	}
	e = &Expression{Source: src, Path: path, program: program}
	ast.Walk(&node, &refCollector{refs: &e.refs})
	return e, nil
}

// Eval runs the expression against env and returns its value as JSON values (objects are
// map[string]any, numbers float64), so the result is the same whether it is used at once
// or after a round trip through Temporal's history.
func (e *Expression) Eval(env Env) (any, error) {
	v, err := e.run(env)
	if err != nil {
		return nil, err
	}
	return normalize(e.Path, v)
}

// EvalBool runs a boolean expression.
func (e *Expression) EvalBool(env Env) (bool, error) {
	v, err := e.run(env)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s: expression gave %s, want a boolean", e.Path, typeName(v))
	}
	return b, nil
}

func (e *Expression) run(env Env) (any, error) {
	machine := vm.VM{MemoryBudget: ExpressionMemoryBudget}
	v, err := machine.Run(e.program, env)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", e.Path, oneLine(err))
	}
	return v, nil
}

// normalize turns an evaluation result into plain JSON values.
func normalize(path string, v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string:
		return v, nil
	case float64:
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			return v, nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s: result is not representable as JSON (%s)", path, typeName(v))
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: result is not representable as JSON: %v", path, err)
	}
	return out, nil
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

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case float64, float32, int, int64, int32, uint, uint64:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("a %T", v)
}

// refCollector records the node ids an expression reads as steps.<id> or steps["<id>"].
type refCollector struct{ refs *[]string }

func (c *refCollector) Visit(node *ast.Node) {
	m, ok := (*node).(*ast.MemberNode)
	if !ok {
		return
	}
	id, ok := m.Node.(*ast.IdentifierNode)
	if !ok || id.Value != "steps" {
		return
	}
	if s, ok := m.Property.(*ast.StringNode); ok {
		*c.refs = append(*c.refs, s.Value)
	}
}

// loopCounter counts the predicates (loop bodies) of an expression and whether one holds another.
type loopCounter struct {
	n      int
	nested bool
}

func (c *loopCounter) Visit(node *ast.Node) {
	p, ok := (*node).(*ast.PredicateNode)
	if !ok {
		return
	}
	c.n++
	inner := &loopCounter{}
	ast.Walk(&p.Node, inner)
	if inner.n > 0 {
		c.nested = true
	}
}

// sortedEntries makes a builtin that lists a map's entries in key order, each rendered by pick.
func sortedEntries(fn string, pick func(k, v reflect.Value) any) func(params ...any) (any, error) {
	return func(params ...any) (any, error) {
		if len(params) != 1 {
			return nil, fmt.Errorf("%s() takes one argument", fn)
		}
		m := reflect.ValueOf(params[0])
		if m.Kind() != reflect.Map {
			return nil, fmt.Errorf("%s() wants a map, got %s", fn, typeName(params[0]))
		}
		keys := m.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i].Interface()) < fmt.Sprint(keys[j].Interface()) })
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = pick(k, m.MapIndex(k))
		}
		return out, nil
	}
}

var (
	sortedKeys   = sortedEntries("keys", func(k, _ reflect.Value) any { return k.Interface() })
	sortedValues = sortedEntries("values", func(_, v reflect.Value) any { return v.Interface() })
	sortedPairs  = sortedEntries("toPairs", func(k, v reflect.Value) any { return []any{k.Interface(), v.Interface()} })
)
