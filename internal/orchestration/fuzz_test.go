package orchestration_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/orchestration"
)

// FuzzParse feeds arbitrary bytes to the definition parser: it must never panic, must
// either accept (and then every node can be planned without a panic) or answer a
// *ValidationError whose paths all sit under "definition".
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		linear, branching, "", "null", "[]", "{}", `{"nodes": []}`, `{"nodes": [null]}`,
		`{"nodes": [{"id": "a", "kind": "condition", "config": {"expression": "inputs.x ?? steps.a.output"}, "next": {"then": "a", "else": "b"}}]}`,
		`{"nodes": [{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ {'a': {'b': 1}} }}"}}}]}`,
		`{"nodes": [{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ 1..10 | map(# * 2) }}", "y": "a{{b}}c{{d"}}}]}`,
		`{"nodes": [{"id": "a", "kind": "http", "config": {"url": "https://x.test/{{ inputs.p }}", "headers": {"A": "{{ now }}"}, "retry": {"maxAttempts": 1e309}}}]}`,
		`{"nodes": [{"id": "a", "kind": "human_approval", "config": {"actionLabel": "{{ inputs }}", "assignTo": "role:", "timeout": "-1h"}, "next": {"approve": "a"}}]}`,
		`{"start": "b", "nodes": [{"id": "a", "kind": "delay", "config": {"duration": "1s"}}, {"id": "b", "kind": "delay", "config": {"duration": "1s"}, "next": "a"}]}`,
		"{\"nodes\": [{\"id\": \"\xff\", \"kind\": \"delay\"}]}",
		`{"nodes": [{"id": "a", "kind": "ai", "config": {"prompt": "Assess {{ inputs.amount }}", "system": "{{ inputs.p }}", "schema": {"type": "object", "required": ["risk"], "properties": {"risk": {"$ref": "#/$defs/r"}}, "$defs": {"r": {"enum": ["low"]}}}, "temperature": 0.2, "maxTokens": 50, "timeout": "5s"}}]}`,
		`{"nodes": [{"id": "a", "kind": "ai", "config": {"prompt": "", "schema": {"$ref": "https://x.test/s.json"}, "temperature": 3, "maxTokens": -1, "timeout": "1ms"}}]}`,
	} {
		f.Add([]byte(seed))
	}
	env := orchestration.Env{
		Inputs:    map[string]any{"x": 1.0, "p": "q", "amount": 5.0, "userId": "u", "token": "t"},
		Steps:     map[string]orchestration.StepState{},
		Execution: orchestration.ExecutionMeta{ID: "exe_1"},
		Now:       time.Unix(0, 0).UTC(),
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := orchestration.Parse(raw)
		if err != nil {
			if d != nil {
				t.Fatal("Parse returned a definition and an error")
			}
			var ve *orchestration.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) == 0 {
				t.Fatalf("error %T %v is not a non-empty *ValidationError", err, err)
			}
			for path, msgs := range ve.Fields {
				if path != "definition" && !strings.HasPrefix(path, "definition.") {
					t.Fatalf("path %q is not under definition", path)
				}
				if len(msgs) == 0 {
					t.Fatalf("path %q has no message", path)
				}
			}
			return
		}
		if _, ok := d.Node(d.Start); !ok {
			t.Fatalf("start node %q missing", d.Start)
		}
		for _, n := range d.Nodes {
			_, _ = n.Plan(env) // errors are fine, panics are not
			for _, b := range []string{"", "then", "else", "approve", "reject"} {
				if next, ok := n.Next(b); ok {
					if _, exists := d.Node(next); !exists {
						t.Fatalf("node %s routes %q to missing node %q", n.ID, b, next)
					}
				}
			}
		}
	})
}

// FuzzExpression puts arbitrary text where definitions hold expressions and templates: the
// parser must answer a field error or a definition, never panic, and evaluation must not panic.
func FuzzExpression(f *testing.F) {
	for _, seed := range []string{
		"inputs.x > 1", "steps.a.output.body[0]", "{{ inputs.x }}", "a {{ 1 + }} b", "now.Add(duration('1h'))",
		"keys(inputs) | map(upper(#))", "let x = 1; x * 2", "1..1e9", `"\u0000"`, "}}{{", "toJSON(inputs) + repeat('x', 10)",
		"fromJSON('[1,2') ?? 0", "$env.steps", "inputs?.a?.b ?? 'none'", "date('2024-02-30')", "execution.workflowVersion / 0",
	} {
		f.Add(seed)
	}
	env := orchestration.Env{Inputs: map[string]any{"x": 2.0, "s": "str"}, Steps: map[string]orchestration.StepState{
		"a": {Output: map[string]any{"body": []any{1.0}}}}, Now: time.Unix(0, 0).UTC()}
	f.Fuzz(func(t *testing.T, src string) {
		q := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
		var esc strings.Builder
		for _, r := range q.Replace(src) {
			if r < 0x20 {
				continue
			}
			esc.WriteRune(r)
		}
		s := esc.String()
		def := `{"nodes": [{"id": "a", "kind": "transform", "config": {"output": {"x": 1}}, "next": "c"},
		 {"id": "c", "kind": "condition", "config": {"expression": "` + s + `"}, "next": {"then": "t", "else": "t"}},
		 {"id": "t", "kind": "transform", "config": {"output": {"v": "` + s + `", "w": "{{` + s + `}}"}}}]}`
		d, err := orchestration.Parse([]byte(def))
		if err != nil {
			var ve *orchestration.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) == 0 {
				t.Fatalf("error %T %v is not a non-empty *ValidationError", err, err)
			}
			return
		}
		for _, n := range d.Nodes {
			_, _ = n.Plan(env)
		}
	})
}
