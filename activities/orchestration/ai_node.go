package orchestration

import (
	"context"
	"fmt"

	autoacts "github.com/svcplatform/svc/activities/automation"
	"github.com/svcplatform/svc/store"
	orchwf "github.com/svcplatform/svc/workflows/orchestration"
)

// RunAINode asks the model for an ai node through the automation product's model step
// (budget, redaction, audit record under the step, metrics) and returns the node's output.
// The conversation stays in the store, out of the workflow's history. Without o.AI every
// ai node fails with "ai not configured".
func (o *Activities) RunAINode(ctx context.Context, in orchwf.AINodeInput) (orchwf.AINodeResult, error) {
	attempt := autoacts.AttemptOf(ctx)
	x := store.AIExchange{ID: fmt.Sprintf("%s:%d", in.StepID, attempt), OrgID: in.OrgID, ExecutionID: in.ExecutionID, StepID: in.StepID}
	out, err := o.AI.Step(ctx, in.OrgID, x, in.Prompt)
	if err != nil {
		return orchwf.AINodeResult{}, autoacts.TemporalError(err, attempt)
	}
	return orchwf.AINodeResult{Attempt: attempt, Output: orchwf.AIOutput{
		Answer: out.Answer, Model: out.Model, Usage: out.Usage, LatencyMs: out.Latency.Milliseconds(), Attempts: out.Attempts,
	}}, nil
}
