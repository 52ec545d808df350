// Package orchestration holds the orchestration product's Temporal workflows: Execution (a
// workflow definition's run, with human approvals) and Ping. Deterministic code only.
package orchestration

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/workflows"
)

// Execution runs one execution of a workflow definition version, node by node:
//
//   - MarkRunning moves the execution pending → running and publishes
//     workflow.execution.started; LoadDefinition reads the version, which is parsed here.
//   - transform and condition nodes are evaluated in workflow code (orchestration
//     expressions are pure); an http node's request is rendered here and sent by the
//     RunHTTPNode activity with the node's retry policy; a delay is a durable timer; a
//     human_approval node records the approval (RecordApproval, which publishes
//     workflow.human_approval_pending) and waits for the resolve-approval Update, or for
//     its timeout, which rejects it.
//   - each step is recorded by RecordStep (stp_ ids derived from the execution and node),
//     finished steps with workflow.step.completed or workflow.step.failed.
//   - FinishExecution records the terminal state with workflow.execution.completed (output
//     = the last step's output), .failed (failedStepId, errorMessage) or .cancelled.
//
// Cancellation is Temporal's: the API first signals cancel-request with the reason and
// actor, then cancels the workflow; cleanup runs on a disconnected context. Definitions have
// no cycles and at most orch.MaxNodes nodes, so a run's history is bounded and the
// workflow never continues as new.
func Execution(ctx workflow.Context, in ExecutionInput) (ExecutionResult, error) {
	r := &execRun{in: in, approvals: map[string]*approval{}, byStep: map[string]*approval{}}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateResolveApproval, r.resolve,
		workflow.UpdateHandlerOptions{Validator: r.validateResolve, Description: "approve or reject a pending approval"}); err != nil {
		return ExecutionResult{}, err
	}
	return r.execute(ctx)
}

// execRun is the state of one execution.
type execRun struct {
	in  ExecutionInput
	env orch.Env
	// localBookkeeping runs the bookkeeping as local activities (VersionLocalBookkeeping).
	localBookkeeping bool
	// stableIDs: runs of VersionStableIDs name their steps, approvals and events by the
	// execution and node alone.
	stableIDs bool
	// output is the output of the last step that finished.
	output any
	// current is the step in progress, for cancellation cleanup.
	current *step
	// pending is the approval being waited on; approvals and byStep hold every approval of
	// the run (by apr_ and stp_ id), so a decided one is recognised as decided.
	pending   *approval
	approvals map[string]*approval
	byStep    map[string]*approval
}

// step is one node being run.
type step struct {
	id       string
	node     *orch.Node
	started  time.Time
	attempts int
}

// runError ends an execution as failed.
type runError struct {
	stepID string
	msg    string
}

func (f *runError) Error() string { return f.msg }

func (r *execRun) execute(ctx workflow.Context) (ExecutionResult, error) {
	workflow.SetCurrentDetails(ctx, "Starting")
	r.localBookkeeping = workflow.GetVersion(ctx, VersionLocalBookkeeping, workflow.DefaultVersion, 1) >= 1
	r.stableIDs = workflows.StableIDs(ctx)
	inputs := r.in.Inputs
	if inputs == nil {
		inputs = map[string]any{}
	}
	r.env = orch.Env{
		Inputs: inputs,
		Steps:  map[string]orch.StepState{},
		Execution: orch.ExecutionMeta{
			ID: r.in.ExecutionID, OrgID: r.in.OrgID, WorkflowID: r.in.WorkflowID, WorkflowSlug: r.in.WorkflowSlug,
			WorkflowVersion: r.in.WorkflowVersion, ExternalID: r.in.ExternalID, StartedBy: r.in.StartedBy,
		},
	}
	mark := MarkRunningInput{
		Execution: r.in,
		StartedAt: workflow.Now(ctx).UTC(),
		Event: r.event(ctx, events.WorkflowExecutionStarted, "started", map[string]any{
			"executionId": r.in.ExecutionID, "workflowId": r.in.WorkflowID, "workflowSlug": r.in.WorkflowSlug,
			"inputs": inputs, "externalId": workflows.OrNull(r.in.ExternalID),
		}),
	}
	if err := r.bookkeeping(ctx, "mark running", ActivityMarkRunning, mark).Get(ctx, nil); err != nil {
		return r.end(ctx, err)
	}
	def, err := r.load(ctx)
	if err != nil {
		return r.end(ctx, err)
	}
	for id := def.Start; id != ""; {
		node, _ := def.Node(id)
		if id, err = r.runNode(ctx, node); err != nil {
			return r.end(ctx, err)
		}
	}
	return r.succeed(ctx)
}

// load reads and parses the definition version.
func (r *execRun) load(ctx workflow.Context) (*orch.Definition, error) {
	in := LoadDefinitionInput{OrgID: r.in.OrgID, WorkflowID: r.in.WorkflowID, Version: r.in.WorkflowVersion}
	var raw json.RawMessage
	summary := fmt.Sprintf("load %s v%d", r.in.WorkflowSlug, r.in.WorkflowVersion)
	if err := r.bookkeeping(ctx, summary, ActivityLoadDefinition, in).Get(ctx, &raw); err != nil {
		return nil, err
	}
	def, err := orch.Parse(raw)
	if err != nil {
		return nil, &runError{msg: fmt.Sprintf("workflow %s version %d: %v", r.in.WorkflowID, r.in.WorkflowVersion, err)}
	}
	return def, nil
}

// runNode runs one node and returns the id of the next one ("" when the run ends here).
func (r *execRun) runNode(ctx workflow.Context, node *orch.Node) (string, error) {
	now := workflow.Now(ctx).UTC()
	st := &step{id: r.childID(ids.Step, now, node.ID), node: node, started: now, attempts: 1}
	r.current = st
	r.env.Now = now
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Running node **%s** (%s), step %s", node.Label(), node.Kind, st.id))
	action, err := node.Plan(r.env)
	if err != nil {
		return "", r.failStep(ctx, st, err.Error())
	}
	var output any
	branch := ""
	switch a := action.(type) {
	case orch.Done:
		output, branch = a.Output, a.Branch
	case orch.CallHTTP:
		output, err = r.callHTTP(ctx, st, a)
	case orch.Sleep:
		err = r.sleep(ctx, st, a)
	case orch.AwaitApproval:
		var decision approvalOutput
		if decision, err = r.awaitApproval(ctx, st, a); err == nil {
			branch = decision.Decision
			output, err = jsonValue(decision)
			if _, routed := node.Next(branch); branch == orch.DecisionReject && !routed {
				return "", r.failStep(ctx, st, rejectionMessage(decision, a))
			}
		}
	case orch.CallModel:
		output, err = r.callModel(ctx, st, a)
	default:
		return "", r.failStep(ctx, st, fmt.Sprintf("node kind %s asks for an unsupported action %T", node.Kind, action))
	}
	if err != nil {
		return "", err
	}
	if err := r.completeStep(ctx, st, output); err != nil {
		return "", err
	}
	next, _ := node.Next(branch)
	return next, nil
}

// callHTTP runs an http node's request in the RunHTTPNode activity.
func (r *execRun) callHTTP(ctx workflow.Context, st *step, a orch.CallHTTP) (any, error) {
	if err := r.recordRunning(ctx, st); err != nil {
		return nil, err
	}
	target := orch.RedactURL(a.Request.URL)
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Calling `%s %s` for node **%s**, step %s (at most %d attempts)",
		a.Request.Method, target, st.node.Label(), st.id, a.Retry.MaxAttempts))
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: a.Request.Timeout + 10*time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        a.Retry.Backoff,
			BackoffCoefficient:     2,
			MaximumAttempts:        int32(a.Retry.MaxAttempts),
			NonRetryableErrorTypes: []string{ErrTypeHTTPStatusFinal, ErrTypeHTTPInvalid},
		},
		Summary: st.node.ID + ": " + a.Request.Method + " " + target,
	})
	var res HTTPResult
	if err := workflow.ExecuteActivity(actx, ActivityRunHTTPNode, a.Request).Get(ctx, &res); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		st.attempts = httpAttempts(err, a.Retry.MaxAttempts)
		msg := cause(err)
		if st.attempts > 1 {
			msg = fmt.Sprintf("%s (after %d attempts)", msg, st.attempts)
		}
		return nil, r.failStep(ctx, st, msg)
	}
	st.attempts = res.Attempt
	out, err := jsonValue(res.Response)
	if err != nil {
		return nil, r.failStep(ctx, st, "response: "+err.Error())
	}
	return out, nil
}

// sleep runs a delay node on a durable timer.
func (r *execRun) sleep(ctx workflow.Context, st *step, a orch.Sleep) error {
	if err := r.recordRunning(ctx, st); err != nil {
		return err
	}
	until := workflow.Now(ctx).Add(a.Duration).UTC()
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Waiting until %s (delay node **%s**, step %s)",
		until.Format(time.RFC3339), st.node.Label(), st.id))
	return workflow.NewTimerWithOptions(ctx, a.Duration, workflow.TimerOptions{Summary: "delay " + st.node.ID}).Get(ctx, nil)
}

// recordRunning records a step that waits on an activity, a timer or a person.
func (r *execRun) recordRunning(ctx workflow.Context, st *step) error {
	return r.recordStep(ctx, r.stepRecord(st, orch.StepRunning))
}

// completeStep records a succeeded step with its workflow.step.completed event.
func (r *execRun) completeStep(ctx workflow.Context, st *step, output any) error {
	rec := r.stepRecord(st, orch.StepSucceeded)
	rec.Output = output
	if err := r.finishStep(ctx, st, rec, events.WorkflowStepCompleted, map[string]any{
		"executionId": r.in.ExecutionID, "stepId": st.id, "nodeId": st.node.ID, "output": output,
	}); err != nil {
		return err
	}
	r.env.Steps[st.node.ID] = orch.StepState{Output: output}
	r.output = output
	return nil
}

// failStep records a failed step with its workflow.step.failed event and returns the
// failure that ends the run.
func (r *execRun) failStep(ctx workflow.Context, st *step, msg string) error {
	rec := r.stepRecord(st, orch.StepFailed)
	rec.Error = msg
	if err := r.finishStep(ctx, st, rec, events.WorkflowStepFailed, map[string]any{
		"executionId": r.in.ExecutionID, "stepId": st.id, "nodeId": st.node.ID, "errorMessage": msg, "attempts": st.attempts,
	}); err != nil {
		return err
	}
	return &runError{stepID: st.id, msg: fmt.Sprintf("node %s (%s): %s", st.node.ID, st.node.Kind, msg)}
}

// finishStep records the step st ended as rec says, now, with the event name carrying data.
func (r *execRun) finishStep(ctx workflow.Context, st *step, rec StepRecord, name string, data map[string]any) error {
	now := workflow.Now(ctx).UTC()
	rec.CompletedAt = &now
	ev := r.event(ctx, name, st.id, data)
	rec.Event = &ev
	if err := r.recordStep(ctx, rec); err != nil {
		return err
	}
	r.current = nil
	return nil
}

// recordStep runs the RecordStep activity for rec.
func (r *execRun) recordStep(ctx workflow.Context, rec StepRecord) error {
	return r.bookkeeping(ctx, "step "+rec.NodeID+" "+string(rec.Status), ActivityRecordStep, rec).Get(ctx, nil)
}

func (r *execRun) stepRecord(st *step, status orch.StepStatus) StepRecord {
	return StepRecord{
		StepID: st.id, OrgID: r.in.OrgID, ExecutionID: r.in.ExecutionID, NodeID: st.node.ID, Kind: st.node.Kind,
		Status: status, Attempts: st.attempts, StartedAt: st.started,
	}
}

// succeed records the succeeded execution with workflow.execution.completed.
func (r *execRun) succeed(ctx workflow.Context) (ExecutionResult, error) {
	now := workflow.Now(ctx).UTC()
	fin := FinishInput{
		ExecutionID: r.in.ExecutionID, OrgID: r.in.OrgID, Status: orch.ExecutionSucceeded, Output: r.output, CompletedAt: now,
		Event: r.event(ctx, events.WorkflowExecutionCompleted, "terminal", map[string]any{
			"executionId": r.in.ExecutionID, "workflowSlug": r.in.WorkflowSlug, "status": orch.ExecutionSucceeded,
			"output": r.output, "completedAt": now.Format(events.TimeFormat), "workflowId": r.in.WorkflowID,
			"workflowVersion": r.in.WorkflowVersion, "externalId": workflows.OrNull(r.in.ExternalID),
		}),
	}
	if err := r.finishExecution(ctx, fin); err != nil {
		return r.end(ctx, err)
	}
	workflow.SetCurrentDetails(ctx, "Succeeded")
	return ExecutionResult{Status: orch.ExecutionSucceeded, Output: r.output}, nil
}

// end finishes a run that stopped on err: cancelled when the workflow was cancelled,
// failed otherwise. The terminal bookkeeping runs on a disconnected context.
func (r *execRun) end(ctx workflow.Context, err error) (ExecutionResult, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	if ctx.Err() != nil {
		return r.cancelled(ctx, dctx)
	}
	var f *runError
	if !errors.As(err, &f) {
		f = &runError{msg: cause(err)}
	}
	now := workflow.Now(ctx).UTC()
	fin := FinishInput{
		ExecutionID: r.in.ExecutionID, OrgID: r.in.OrgID, Status: orch.ExecutionFailed,
		FailedStepID: f.stepID, ErrorMessage: f.msg, CompletedAt: now,
		Event: r.event(ctx, events.WorkflowExecutionFailed, "terminal", map[string]any{
			"executionId": r.in.ExecutionID, "workflowSlug": r.in.WorkflowSlug,
			"failedStepId": workflows.OrNull(f.stepID), "errorMessage": f.msg,
		}),
	}
	if err := r.finishExecution(dctx, fin); err != nil {
		return ExecutionResult{}, err
	}
	workflow.SetCurrentDetails(ctx, "Failed: "+f.msg)
	return ExecutionResult{}, temporal.NewNonRetryableApplicationError(f.msg, ErrTypeExecutionFailed, nil,
		map[string]any{"failedStepId": f.stepID})
}

// cancelled records a cancelled run: the step in progress, the pending approval and the
// execution, with the reason and actor of the last cancel-request signal.
func (r *execRun) cancelled(ctx, dctx workflow.Context) (ExecutionResult, error) {
	var req CancelRequest
	ch := workflow.GetSignalChannel(dctx, SignalCancelRequest)
	for ch.ReceiveAsync(&req) {
	}
	now := workflow.Now(dctx).UTC()
	if st := r.current; st != nil {
		rec := r.stepRecord(st, orch.StepCancelled)
		rec.Error = "execution cancelled"
		rec.CompletedAt = &now
		if err := r.recordStep(dctx, rec); err != nil {
			return ExecutionResult{}, err
		}
	}
	if ap := r.pending; ap != nil && ap.status == orch.ApprovalPending {
		ap.status, ap.decidedAt = orch.ApprovalCancelled, now
		if err := r.bookkeeping(dctx, "approval cancelled", ActivityResolveApproval, ap.decision(r.in.OrgID)).Get(dctx, nil); err != nil {
			return ExecutionResult{}, err
		}
	}
	fin := FinishInput{
		ExecutionID: r.in.ExecutionID, OrgID: r.in.OrgID, Status: orch.ExecutionCancelled,
		Reason: req.Reason, ActorUserID: req.ActorUserID, CompletedAt: now,
		Event: r.event(dctx, events.WorkflowExecutionCancelled, "terminal", map[string]any{
			"executionId": r.in.ExecutionID, "workflowSlug": r.in.WorkflowSlug,
			"reason": workflows.OrNull(req.Reason), "actorUserId": workflows.OrNull(req.ActorUserID),
		}),
	}
	if err := r.finishExecution(dctx, fin); err != nil {
		return ExecutionResult{}, err
	}
	workflow.SetCurrentDetails(dctx, "Cancelled")
	return ExecutionResult{}, ctx.Err()
}

// finishExecution runs the FinishExecution activity for fin.
func (r *execRun) finishExecution(ctx workflow.Context, fin FinishInput) error {
	return r.bookkeeping(ctx, "finish: "+string(fin.Status), ActivityFinishExecution, fin).Get(ctx, nil)
}

// VersionLocalBookkeeping is the workflow.GetVersion change id under which an execution runs
// its bookkeeping (store writes and their events) as local activities: version 1 and later
// run them in the workflow's worker, in the workflow task that asks for them, with no
// activity task round trip through the server; runs recorded before it (DefaultVersion)
// keep their regular activities, so their histories replay.
const VersionLocalBookkeeping = "local-bookkeeping"

// VersionStableIDs is workflows.VersionStableIDs: runs of it name their steps, approvals and
// events by the execution, node and event alone (a re-run local activity wrote a second step).
const VersionStableIDs = workflows.VersionStableIDs

// childID is the id of a record of this run named by parts (a node): time-free in runs of
// VersionStableIDs, else derived from now as before.
func (r *execRun) childID(p ids.Prefix, now time.Time, parts ...string) string {
	if r.stableIDs {
		return ids.Within(p, r.in.ExecutionID, parts...)
	}
	return ids.DeriveFrom(p, now, append([]string{r.in.ExecutionID}, parts...)...)
}

// bookkeeping runs one bookkeeping activity, retried until it succeeds except for errors
// that retrying cannot mend: a local activity in runs of VersionLocalBookkeeping, a regular
// one in older runs.
func (r *execRun) bookkeeping(ctx workflow.Context, summary, activity string, arg any) workflow.Future {
	retry := workflows.BookkeepingRetry(ErrTypeDefinitionNotFound, workflows.ErrTypeInvalidEvent)
	if r.localBookkeeping {
		return workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			StartToCloseTimeout: 30 * time.Second, RetryPolicy: retry, Summary: summary,
		}), activity, arg)
	}
	return workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second, RetryPolicy: retry, Summary: summary,
	}), activity, arg)
}

// event prepares one event for a bookkeeping activity to publish: its evt_ id derives from
// the execution, key and name, and its time is the workflow's, so a retried activity
// publishes the same event.
func (r *execRun) event(ctx workflow.Context, name, key string, data map[string]any) workflows.PublishEventInput {
	return workflows.RunEventInput(ctx, r.stableIDs, r.in.OrgID, r.in.ExecutionID, name, key, data)
}

// httpAttempts is how many attempts an http node made before err.
func httpAttempts(err error, limit int) int {
	var ae *temporal.ApplicationError
	var d HTTPFailure
	if errors.As(err, &ae) && ae.HasDetails() && ae.Details(&d) == nil && d.Attempt > 0 {
		return d.Attempt
	}
	var act *temporal.ActivityError
	if errors.As(err, &act) && act.RetryState() == enumspb.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED {
		return limit
	}
	return 1
}

// cause is the message of the innermost application error in err, or err's own message:
// what a person needs, without the activity wrapping.
func cause(err error) string {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return ae.Message()
	}
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		return "timed out (" + strings.ToLower(strings.TrimPrefix(te.TimeoutType().String(), "TIMEOUT_TYPE_")) + ")"
	}
	return err.Error()
}
