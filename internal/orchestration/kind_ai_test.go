package orchestration_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/orchestration"
)

// aiDef is an ai node reading an earlier step, followed by a review.
const aiDef = `{"nodes": [
 {"id": "fetch", "kind": "transform", "config": {"output": {"body": {"text": "{{ inputs.first + ' ' + inputs.last }}"}}}, "next": "summarise"},
 {"id": "summarise", "kind": "ai", "config": {
   "system": "You are a compliance analyst for {{ execution.orgId }}.",
   "prompt": "Summarise: {{ steps.fetch.output.body.text }}",
   "schema": {"type": "object", "required": ["summary"], "properties": {"summary": {"type": "string"}}},
   "temperature": 0.3, "maxTokens": 400, "timeout": "45s"}, "next": "review"},
 {"id": "review", "kind": "human_approval", "config": {"actionLabel": "{{ steps.summarise.output.answer.summary }}", "assignTo": "role:reviewer"}}
]}`

func TestPlanAI(t *testing.T) {
	d := mustParse(t, aiDef)
	env := testEnv()
	env.Steps["fetch"] = orchestration.StepState{Output: map[string]any{"body": map[string]any{"text": "Ada Lovelace"}}}
	a, err := mustNode(t, d, "summarise").Plan(env)
	if err != nil {
		t.Fatal(err)
	}
	temp := 0.3
	want := orchestration.CallModel{Prompt: automation.Prompt{
		System: "You are a compliance analyst for org_1.", Prompt: "Summarise: Ada Lovelace",
		Schema:      json.RawMessage(`{"type": "object", "required": ["summary"], "properties": {"summary": {"type": "string"}}}`),
		Temperature: &temp, MaxTokens: 400, Timeout: 45 * time.Second,
	}}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("Plan = %#v\nwant   %#v", a, want)
	}
}

func TestPlanAIDefaults(t *testing.T) {
	d := mustParse(t, `{"nodes": [{"id": "a", "kind": "ai", "config": {"prompt": "Hello {{ inputs.first }}"}}]}`)
	a, err := mustNode(t, d, "a").Plan(testEnv())
	if err != nil {
		t.Fatal(err)
	}
	want := orchestration.CallModel{Prompt: automation.Prompt{Prompt: "Hello Ada", Timeout: orchestration.DefaultAITimeout}}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("Plan = %#v", a)
	}
}

func TestPlanAIRuntimeLimits(t *testing.T) {
	d := mustParse(t, `{"nodes": [{"id": "a", "kind": "ai", "config": {"prompt": "{{ inputs.text }}"}}]}`)
	env := testEnv()
	env.Inputs["text"] = strings.Repeat("x", orchestration.MaxPromptBytes+1)
	if _, err := mustNode(t, d, "a").Plan(env); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("oversized prompt: %v", err)
	}
	env.Inputs["text"] = "  "
	if _, err := mustNode(t, d, "a").Plan(env); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("blank prompt: %v", err)
	}
}

func TestParseInvalidAI(t *testing.T) {
	tests := []struct {
		name, config string
		want         map[string]string
	}{
		{"prompt missing", `{}`, map[string]string{"prompt": "is required"}},
		{"prompt blank", `{"prompt": "  "}`, map[string]string{"prompt": "non-empty string"}},
		{"prompt an object", `{"prompt": {"a": 1}}`, map[string]string{"prompt": "non-empty string"}},
		{"prompt bad expression", `{"prompt": "{{ inputs. }}"}`, map[string]string{"prompt": ""}},
		{"system a number", `{"prompt": "p", "system": 3}`, map[string]string{"system": "non-empty string"}},
		{"schema not an object", `{"prompt": "p", "schema": "object"}`, map[string]string{"schema": "must be a JSON object"}},
		{"schema invalid", `{"prompt": "p", "schema": {"type": "thing"}}`, map[string]string{"schema": "invalid JSON Schema"}},
		{"schema remote ref", `{"prompt": "p", "schema": {"$ref": "https://example.com/s.json"}}`, map[string]string{"schema": "invalid JSON Schema"}},
		{"temperature too high", `{"prompt": "p", "temperature": 2.5}`, map[string]string{"temperature": "between 0 and 2"}},
		{"temperature a string", `{"prompt": "p", "temperature": "hot"}`, map[string]string{"temperature": "between 0 and 2"}},
		{"maxTokens zero", `{"prompt": "p", "maxTokens": 0}`, map[string]string{"maxTokens": "between 1 and 32768"}},
		{"timeout too long", `{"prompt": "p", "timeout": "1h"}`, map[string]string{"timeout": "between 1s and 10m0s"}},
		{"unknown field", `{"prompt": "p", "model": "gpt-4o"}`, map[string]string{"model": "unknown field"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := orchestration.Parse([]byte(`{"nodes": [{"id": "a", "kind": "ai", "config": ` + tt.config + `}]}`))
			var ve *orchestration.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a ValidationError", err)
			}
			if len(ve.Fields) != len(tt.want) {
				t.Fatalf("fields = %v, want %v", ve.Fields, tt.want)
			}
			for field, msg := range tt.want {
				got := ve.Fields["definition.nodes[0].config."+field]
				if len(got) == 0 || !strings.Contains(strings.Join(got, " | "), msg) {
					t.Errorf("%s: %v, want %q", field, got, msg)
				}
			}
		})
	}
}

func TestParseAIReadsOnlyEarlierSteps(t *testing.T) {
	_, err := orchestration.Parse([]byte(`{"nodes": [
	 {"id": "a", "kind": "ai", "config": {"prompt": "{{ steps.b.output }}"}, "next": "b"},
	 {"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`))
	if err == nil || !strings.Contains(err.Error(), "steps.b") {
		t.Fatalf("err = %v, want a reference error", err)
	}
}
