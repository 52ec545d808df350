package orchestration_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/orchestration"
)

func mustParse(t *testing.T, def string) *orchestration.Definition {
	t.Helper()
	d, err := orchestration.Parse([]byte(def))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

func mustNode(t *testing.T, d *orchestration.Definition, id string) *orchestration.Node {
	t.Helper()
	n, ok := d.Node(id)
	if !ok {
		t.Fatalf("no node %q", id)
	}
	return n
}

func testEnv() orchestration.Env {
	return orchestration.Env{
		Inputs: map[string]any{"userId": "u1", "token": "t0k", "amount": 1500.0, "first": "Ada", "last": "Lovelace",
			"tags": map[string]any{"b": 2.0, "a": 1.0, "c": 3.0}},
		Steps: map[string]orchestration.StepState{
			"fetch": {Output: map[string]any{"status": 200.0, "body": map[string]any{"total": 42.0, "items": []any{"x", "y"}}}},
		},
		Execution: orchestration.ExecutionMeta{ID: "exe_1", OrgID: "org_1", WorkflowID: "wkf_1", WorkflowSlug: "payout",
			WorkflowVersion: 3, ExternalID: "ext-9", StartedBy: "usr_1"},
		Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	}
}

func TestPlanHTTP(t *testing.T) {
	d := mustParse(t, linear)
	a, err := mustNode(t, d, "fetch").Plan(testEnv())
	if err != nil {
		t.Fatal(err)
	}
	want := orchestration.CallHTTP{
		Request: orchestration.HTTPRequest{
			Method: "POST", URL: "https://api.example.com/users/u1",
			Headers: map[string]string{"Authorization": "Bearer t0k", "X-Trace": "exe-exe_1"},
			Body:    map[string]any{"amount": 1500.0, "note": "fixed"},
			Timeout: 10 * time.Second,
		},
		Retry: orchestration.RetryPolicy{MaxAttempts: 5, Backoff: 2 * time.Second},
	}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("Plan = %#v\nwant   %#v", a, want)
	}
}

func TestPlanHTTPDefaults(t *testing.T) {
	d := mustParse(t, node(`{"id": "a", "kind": "http", "config": {"url": "{{ inputs.url }}"}}`))
	a, err := mustNode(t, d, "a").Plan(orchestration.Env{Inputs: map[string]any{"url": "https://x.test/p"}})
	if err != nil {
		t.Fatal(err)
	}
	want := orchestration.CallHTTP{
		Request: orchestration.HTTPRequest{Method: "GET", URL: "https://x.test/p", Timeout: orchestration.DefaultHTTPTimeout},
		Retry:   orchestration.RetryPolicy{MaxAttempts: orchestration.DefaultMaxAttempts, Backoff: orchestration.DefaultBackoff},
	}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("Plan = %#v\nwant   %#v", a, want)
	}
	// A rendered URL that is not http(s) is refused before any activity runs.
	_, err = mustNode(t, d, "a").Plan(orchestration.Env{Inputs: map[string]any{"url": "gopher://x.test"}})
	if err == nil || !strings.Contains(err.Error(), "scheme must be http or https") {
		t.Fatalf("err = %v", err)
	}
}

func TestPlanTransform(t *testing.T) {
	d := mustParse(t, `{"nodes": [{"id": "fetch", "kind": "http", "config": {"url": "https://x.test"}, "next": "t"},
	 {"id": "t", "kind": "transform", "config": {"output": {
		"fullName": "{{ inputs.first + ' ' + inputs.last }}",
		"total": "{{ steps.fetch.output.body.total * 2 }}",
		"count": "{{ len(steps.fetch.output.body.items) }}",
		"label": "total={{ steps.fetch.output.body.total }} items={{ steps.fetch.output.body.items }} none={{ inputs.missing }}",
		"keys": "{{ keys(inputs.tags) }}",
		"pairs": "{{ toPairs(inputs.tags) }}",
		"vals": "{{ values(inputs.tags) }}",
		"year": "{{ now.Year() }}",
		"at": "{{ now }}",
		"meta": "{{ execution.workflowSlug }}#{{ execution.workflowVersion }}",
		"nested": [{"k": "{{ inputs.amount > 1000 }}"}, 7, null, "lit"]
	}}}]}`)
	a, err := mustNode(t, d, "t").Plan(testEnv())
	if err != nil {
		t.Fatal(err)
	}
	want := orchestration.Done{Output: map[string]any{
		"fullName": "Ada Lovelace",
		"total":    84.0,
		"count":    2.0,
		"label":    `total=42 items=["x","y"] none=`,
		"keys":     []any{"a", "b", "c"},
		"pairs":    []any{[]any{"a", 1.0}, []any{"b", 2.0}, []any{"c", 3.0}},
		"vals":     []any{1.0, 2.0, 3.0},
		"year":     2026.0,
		"at":       "2026-01-02T03:04:05Z",
		"meta":     "payout#3",
		"nested":   []any{map[string]any{"k": true}, 7.0, nil, "lit"},
	}}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("Plan = %#v\nwant   %#v", a, want)
	}
}

func TestPlanCondition(t *testing.T) {
	def := `{"nodes": [
	 {"id": "c", "kind": "condition", "config": {"expression": "inputs.amount > 1000 && execution.externalId != ''"}, "next": {"then": "yes", "else": "no"}},
	 {"id": "yes", "kind": "delay", "config": {"duration": "1s"}},
	 {"id": "no", "kind": "delay", "config": {"duration": "1s"}}]}`
	d := mustParse(t, def)
	c := mustNode(t, d, "c")
	tests := []struct {
		amount float64
		branch string
		next   string
	}{{1500, "then", "yes"}, {10, "else", "no"}}
	for _, tt := range tests {
		env := testEnv()
		env.Inputs["amount"] = tt.amount
		a, err := c.Plan(env)
		if err != nil {
			t.Fatal(err)
		}
		want := orchestration.Done{Output: map[string]any{"result": tt.branch == "then"}, Branch: tt.branch}
		if !reflect.DeepEqual(a, want) {
			t.Errorf("amount %v: Plan = %#v, want %#v", tt.amount, a, want)
		}
		if next, ok := c.Next(tt.branch); !ok || next != tt.next {
			t.Errorf("Next(%q) = %q, %v; want %q", tt.branch, next, ok, tt.next)
		}
	}
	// An expression typed "any" at save time that gives a non-boolean fails at run time.
	d = mustParse(t, strings.Replace(def, "inputs.amount > 1000 && execution.externalId != ''", "inputs.flag", 1))
	_, err := mustNode(t, d, "c").Plan(orchestration.Env{Inputs: map[string]any{"flag": "yes"}})
	if err == nil || !strings.Contains(err.Error(), "definition.nodes[0].config.expression: expression gave a string, want a boolean") {
		t.Fatalf("err = %v", err)
	}
}

func TestPlanDelay(t *testing.T) {
	d := mustParse(t, node(`{"id": "d", "kind": "delay", "config": {"duration": "90m"}}`))
	a, err := mustNode(t, d, "d").Plan(orchestration.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (orchestration.Sleep{Duration: 90 * time.Minute}); a != want {
		t.Fatalf("Plan = %#v, want %#v", a, want)
	}
}

func TestPlanApproval(t *testing.T) {
	d := mustParse(t, branching)
	review := mustNode(t, d, "review")
	a, err := review.Plan(testEnv())
	if err != nil {
		t.Fatal(err)
	}
	want := orchestration.AwaitApproval{ActionLabel: "Approve 1500 EUR", AssignTo: "role:reviewer",
		Data: map[string]any{"amount": 1500.0}, Timeout: 48 * time.Hour}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("Plan = %#v, want %#v", a, want)
	}
	for branch, next := range map[string]string{"approve": "auto", "reject": "declined"} {
		if got, ok := review.Next(branch); !ok || got != next {
			t.Errorf("Next(%q) = %q, %v; want %q", branch, got, ok, next)
		}
	}
	// Without routes: approve ends the run, reject has no route (the workflow fails the run).
	d = mustParse(t, node(`{"id": "a", "kind": "human_approval", "config": {"actionLabel": "ok?", "assignTo": "role:r"}}`))
	a, err = mustNode(t, d, "a").Plan(orchestration.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.(orchestration.AwaitApproval); got.Timeout != 0 || len(got.Data) != 0 || got.Data == nil {
		t.Errorf("Plan = %#v, want no timeout and empty non-nil data", got)
	}
	if _, ok := mustNode(t, d, "a").Next("reject"); ok {
		t.Error("reject is routed without a route in the definition")
	}
}

func TestPlanRuntimeErrors(t *testing.T) {
	tests := []struct {
		name, def, want string
	}{
		{"nil member", node(`{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ inputs.a.b }}"}}}`),
			"definition.nodes[0].config.output.x: cannot fetch b from <nil>"},
		{"memory budget", node(`{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ 1..100000000 }}"}}}`),
			"memory budget exceeded"},
		{"not JSON", node(`{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ 1.0 / 0 }}"}}}`),
			"not representable as JSON"},
		{"keys of a non-map", node(`{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ keys(inputs.s) }}"}}}`),
			"keys() wants a map, got a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustParse(t, tt.def)
			_, err := d.Nodes[0].Plan(orchestration.Env{Inputs: map[string]any{"s": "x"}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// Evaluating the same node on the same Env gives the same result every time (keys() and
// friends do not leak Go's random map order).
func TestPlanDeterministic(t *testing.T) {
	d := mustParse(t, node(`{"id": "a", "kind": "transform", "config": {"output": {"k": "{{ keys(inputs) }}", "v": "{{ values(inputs) }}", "j": "{{ toJSON(inputs) }}"}}}`))
	inputs := map[string]any{}
	for _, k := range strings.Split("q w e r t y u i o p a s d f g h j k l z x c v b n m", " ") {
		inputs[k] = k + k
	}
	first, err := d.Nodes[0].Plan(orchestration.Env{Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		again, err := d.Nodes[0].Plan(orchestration.Env{Inputs: inputs})
		if err != nil || !reflect.DeepEqual(first, again) {
			t.Fatalf("run %d differs: %v %v", i, again, err)
		}
	}
}

func TestMayResolve(t *testing.T) {
	tests := []struct {
		assignTo, actor string
		roles           []string
		want            string
	}{
		{"role:reviewer", "usr_2", []string{"admin", "reviewer"}, ""},
		{"role:reviewer", "usr_2", []string{"admin"}, "missing role: reviewer"},
		{"role:reviewer", "usr_2", nil, "missing role: reviewer"},
		{"user:usr_9", "usr_9", nil, ""},
		{"user:usr_9", "usr_2", []string{"reviewer"}, "approval is assigned to user:usr_9"},
	}
	for _, tt := range tests {
		if got := orchestration.MayResolve(tt.assignTo, tt.actor, tt.roles); got != tt.want {
			t.Errorf("MayResolve(%q, %q, %v) = %q, want %q", tt.assignTo, tt.actor, tt.roles, got, tt.want)
		}
	}
}

func TestExpressionBounds(t *testing.T) {
	transform := func(src string) string {
		return node(`{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ ` + src + ` }}"}}}`)
	}
	tests := []struct{ name, src, want string }{
		{"nested loops", "let r = 1..1000; reduce(r, #acc + reduce(r, #acc + #, 0), 0)", "nests a loop"},
		{"nested in a pipe", "inputs.rows | map(filter(#, # > 1))", "nests a loop"},
		{"too many loops", strings.Repeat("len(filter(inputs.r, # > 0)) + ", 10) + "len(filter(inputs.r, # > 0))", "more than 10 loops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := orchestration.Parse([]byte(transform(tt.src)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	// One level of loops over a large range is allowed; the memory budget bounds its size.
	d := mustParse(t, transform("sum(map(1..1000, # * 2))"))
	a, err := d.Nodes[0].Plan(orchestration.Env{})
	if err != nil || a.(orchestration.Done).Output.(map[string]any)["x"] != 1001000.0 {
		t.Fatalf("Plan = %v, %v", a, err)
	}
	d = mustParse(t, transform("len(1..200000)"))
	if _, err := d.Nodes[0].Plan(orchestration.Env{}); err == nil || !strings.Contains(err.Error(), "memory budget exceeded") {
		t.Fatalf("err = %v, want the memory budget", err)
	}
}

func TestRedactURL(t *testing.T) {
	tests := map[string]string{
		"https://user:pw@api.example.com/v1/pay?token=secret#frag": "https://api.example.com/v1/pay",
		"http://127.0.0.1:8080/a%20b":                              "http://127.0.0.1:8080/a%20b",
		"://bad":                                                   "(invalid URL)",
	}
	for in, want := range tests {
		if got := orchestration.RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
