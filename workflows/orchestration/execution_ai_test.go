package orchestration

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/events"
	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/workflows/workflowtest"
)

// aiDef asks the model, then a person approves what it answered.
const aiDef = `{"nodes": [
 {"id": "assess", "kind": "ai", "config": {"prompt": "Assess a payout of {{ inputs.amount }} to {{ inputs.userId }}",
  "schema": {"type": "object", "required": ["risk"], "properties": {"risk": {"enum": ["low", "high"]}}}, "timeout": "20s"}, "next": "shape"},
 {"id": "shape", "kind": "transform", "config": {"output": {"risk": "{{ steps.assess.output.answer.risk }}", "model": "{{ steps.assess.output.model }}"}}}
]}`

func aiAnswer(attempt int) AINodeResult {
	return AINodeResult{Attempt: attempt, Output: AIOutput{Answer: map[string]any{"risk": "low"}, Model: "test-model",
		Usage: automation.Usage{PromptTokens: 30, CompletionTokens: 6, TotalTokens: 36}, LatencyMs: 120, Attempts: 1}}
}

func TestExecutionAINode(t *testing.T) {
	env, f := newExecution(t, aiDef)
	f.ai = func(attempt int, in AINodeInput) (AINodeResult, error) { return aiAnswer(attempt), nil }
	env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
	res := workflowtest.Result[ExecutionResult](t, env)
	workflowtest.SameJSON(t, "result", res, ExecutionResult{Status: "succeeded", Output: map[string]any{"risk": "low", "model": "test-model"}})
	if len(f.aiCalls) != 1 {
		t.Fatalf("%d RunAINode calls, want 1", len(f.aiCalls))
	}
	in := f.aiCalls[0]
	want := automation.Prompt{Prompt: "Assess a payout of 1500 to u42", Timeout: 20 * time.Second,
		// The schema travels compacted, as JSON marshals a raw message.
		Schema: []byte(`{"type":"object","required":["risk"],"properties":{"risk":{"enum":["low","high"]}}}`)}
	if !reflect.DeepEqual(in.Prompt, want) || in.OrgID != testInput.OrgID || in.ExecutionID != testInput.ExecutionID ||
		in.StepID != f.stepID("assess") || in.NodeID != "assess" {
		t.Fatalf("RunAINode input = %+v", in)
	}
	if got, want := f.stepLog(), []string{"assess:running", "assess:succeeded", "shape:succeeded"}; !reflect.DeepEqual(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
	// Tokens, latency and the model are recorded on the step.
	workflowtest.SameJSON(t, "ai step output", f.steps[1].Output, map[string]any{"answer": map[string]any{"risk": "low"}, "model": "test-model",
		"usage": map[string]any{"promptTokens": 30, "completionTokens": 6, "totalTokens": 36}, "latencyMs": 120, "attempts": 1})
	if f.steps[1].Attempts != 1 {
		t.Errorf("attempts = %d", f.steps[1].Attempts)
	}
}

func TestExecutionAINodeHonoursRetryAfter(t *testing.T) {
	env, f := newExecution(t, aiDef)
	var at []time.Time
	f.ai = func(attempt int, in AINodeInput) (AINodeResult, error) {
		at = append(at, env.Now())
		if attempt == 1 {
			return AINodeResult{}, temporal.NewApplicationErrorWithOptions("ai provider rate limited (retry after 45s)", automation.ErrTypeRateLimited,
				temporal.ApplicationErrorOptions{NextRetryDelay: 45 * time.Second, Details: []any{automation.StepFailure{Attempt: 1}}})
		}
		return aiAnswer(attempt), nil
	}
	env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
	if res := workflowtest.Result[ExecutionResult](t, env); res.Status != "succeeded" {
		t.Fatalf("result = %+v", res)
	}
	if len(at) != 2 || at[1].Sub(at[0]) < 45*time.Second {
		t.Fatalf("attempts at %v, want the second 45s after the first", at)
	}
	if f.steps[1].Attempts != 2 {
		t.Errorf("step attempts = %d, want 2", f.steps[1].Attempts)
	}
}

func TestExecutionAINodeFailures(t *testing.T) {
	tests := []struct {
		name     string
		err      func(attempt int) error
		calls    int
		message  string
		attempts int
	}{
		{"final error is not retried", func(a int) error {
			return temporal.NewNonRetryableApplicationError("ai not configured", automation.ErrTypeFinal, nil, automation.StepFailure{Attempt: a})
		}, 1, "node assess (ai): ai not configured", 1},
		{"invalid answer is not retried", func(a int) error {
			return temporal.NewNonRetryableApplicationError("ai answer invalid after 2 attempts: the answer is not valid JSON", automation.ErrTypeFinal, nil, automation.StepFailure{Attempt: a})
		}, 1, "ai answer invalid after 2 attempts", 1},
		{"provider errors retried up to the limit", func(a int) error {
			return temporal.NewApplicationError("ai provider: status 500: Internal Server Error", automation.ErrTypeProvider, automation.StepFailure{Attempt: a})
		}, automation.MaxActivityAttempts, "status 500: Internal Server Error (after 4 attempts)", automation.MaxActivityAttempts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, f := newExecution(t, aiDef)
			f.ai = func(attempt int, _ AINodeInput) (AINodeResult, error) { return AINodeResult{}, tt.err(attempt) }
			env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
			err := env.GetWorkflowError()
			var ae *temporal.ApplicationError
			if !errors.As(err, &ae) || ae.Type() != ErrTypeExecutionFailed || !strings.Contains(ae.Message(), tt.message) {
				t.Fatalf("workflow error = %v, want %q", err, tt.message)
			}
			if len(f.aiCalls) != tt.calls {
				t.Errorf("%d RunAINode calls, want %d", len(f.aiCalls), tt.calls)
			}
			if got, want := f.stepLog(), []string{"assess:running", "assess:failed"}; !reflect.DeepEqual(got, want) {
				t.Errorf("steps = %v, want %v", got, want)
			}
			if f.steps[1].Attempts != tt.attempts {
				t.Errorf("step attempts = %d, want %d", f.steps[1].Attempts, tt.attempts)
			}
			failed := f.lastEvent(events.WorkflowStepFailed)
			if failed.Data["nodeId"] != "assess" || !strings.Contains(failed.Data["errorMessage"].(string), strings.TrimPrefix(tt.message, "node assess (ai): ")) {
				t.Errorf("step.failed data = %v", failed.Data)
			}
			if fin := f.finished(); fin.Status != orch.ExecutionFailed || fin.FailedStepID != f.stepID("assess") {
				t.Errorf("finish = %+v", fin)
			}
		})
	}
}
