package orchestration

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/automation"
	orch "github.com/svcplatform/svc/internal/orchestration"
)

// ActivityRunAINode asks the model for an ai node (activities/orchestration.Activities,
// through the automation product's model steps); its errors carry the automation.ErrType*
// types and an automation.StepFailure detail.
const ActivityRunAINode = "RunAINode"

// aiNodeChange guards the Execution workflow's handling of ai nodes: a run that reached an
// ai node before the workflow knew the kind failed the step as an unsupported action, and
// replays so.
const aiNodeChange = "ai-node"

// AINodeInput is RunAINode's input: the rendered prompt (bounded by orch.MaxPromptBytes)
// and the ids its audit record and budget are kept under.
type AINodeInput struct {
	OrgID       string
	ExecutionID string
	StepID      string
	NodeID      string
	Prompt      automation.Prompt
}

// AIOutput is an ai node's output (orch.AI). The conversation is not part of it: RunAINode
// stores it with the step (audit), out of the workflow's history.
type AIOutput struct {
	Answer    any              `json:"answer"`
	Model     string           `json:"model"`
	Usage     automation.Usage `json:"usage"`
	LatencyMs int64            `json:"latencyMs"`
	// Attempts is the answers asked of the model (2 when the first broke the schema).
	Attempts int `json:"attempts"`
}

// AINodeResult is what RunAINode returns: the output and the activity attempt that got it.
type AINodeResult struct {
	Output  AIOutput
	Attempt int
}

// callModel runs an ai node in the RunAINode activity, with its own timeout (two exchanges
// of the node's timeout) and retry policy.
func (r *execRun) callModel(ctx workflow.Context, st *step, a orch.CallModel) (any, error) {
	if workflow.GetVersion(ctx, aiNodeChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil, r.failStep(ctx, st, fmt.Sprintf("node kind %s asks for an unsupported action %T", st.node.Kind, a))
	}
	if err := r.recordRunning(ctx, st); err != nil {
		return nil, err
	}
	timeout := a.Prompt.Timeout
	if timeout <= 0 {
		timeout = orch.DefaultAITimeout
	}
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Asking the model for node **%s**, step %s (at most %d attempts)",
		st.node.Label(), st.id, automation.MaxActivityAttempts))
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Duration(automation.MaxAnswerAttempts)*timeout + 15*time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        2 * time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        time.Minute,
			MaximumAttempts:        automation.MaxActivityAttempts,
			NonRetryableErrorTypes: []string{automation.ErrTypeFinal},
		},
		Summary: st.node.ID + ": ai",
	})
	in := AINodeInput{OrgID: r.in.OrgID, ExecutionID: r.in.ExecutionID, StepID: st.id, NodeID: st.node.ID, Prompt: a.Prompt}
	var res AINodeResult
	if err := workflow.ExecuteActivity(actx, ActivityRunAINode, in).Get(ctx, &res); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		st.attempts = aiAttempts(err)
		msg := cause(err)
		if st.attempts > 1 {
			msg = fmt.Sprintf("%s (after %d attempts)", msg, st.attempts)
		}
		return nil, r.failStep(ctx, st, msg)
	}
	st.attempts = max(res.Attempt, 1)
	out, err := jsonValue(res.Output)
	if err != nil {
		return nil, r.failStep(ctx, st, "answer: "+err.Error())
	}
	return out, nil
}

// aiAttempts is how many activity attempts an ai node made before err.
func aiAttempts(err error) int {
	var ae *temporal.ApplicationError
	var d automation.StepFailure
	if errors.As(err, &ae) && ae.HasDetails() && ae.Details(&d) == nil && d.Attempt > 0 {
		return d.Attempt
	}
	return httpAttempts(err, automation.MaxActivityAttempts)
}
