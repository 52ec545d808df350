// Package fraud holds the anti-fraud product's workflows: the backtest of a rule set version
// over stored decisions.
package fraud

import (
	"errors"
	"fmt"
	"github.com/svcplatform/svc/internal/events"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	engine "github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/workflows"
)

// BacktestName is the registered name of the Backtest workflow.
const BacktestName = "FraudBacktest"

// Activity names of the backtest.
const (
	ActivityReplayPage   = "FraudBacktestReplayPage"
	ActivitySaveBacktest = "FraudBacktestSave"
)

// BacktestPageSize is how many decisions one activity replays.
const BacktestPageSize = 500

// BacktestInput starts a backtest; State carries a run across continue-as-new.
type BacktestInput struct {
	BacktestID string
	OrgID      string
	RuleSetID  string
	Version    int
	State      *BacktestState
}

// BacktestState is the progress of a backtest.
type BacktestState struct {
	After  string
	Done   int64
	Report engine.BacktestReport
}

// ReplayPageInput asks for the next page of a backtest.
type ReplayPageInput struct {
	BacktestID, OrgID, After string
	Limit                    int
}

// ReplayPageResult is a page's partial report; Last is its last decision id ("" when empty).
type ReplayPageResult struct {
	Report engine.BacktestReport
	Count  int
	Last   string
	Total  int64
}

// SaveBacktestInput records a backtest's progress or end.
type SaveBacktestInput struct {
	BacktestID, OrgID, Status, Error string
	Done                             int64
	Report                           engine.BacktestReport
}

// Backtest replays a candidate version over the stored decisions of a date range, a page per
// activity, saving its progress after each page so GET /api/backtests/{id} and the Temporal UI
// show it. Cancelling the workflow records the backtest cancelled.
func Backtest(ctx workflow.Context, in BacktestInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5, NonRetryableErrorTypes: []string{ErrTypeBacktest}},
	})
	st := BacktestState{Report: engine.NewBacktestReport()}
	if in.State != nil {
		st = *in.State
	}
	for {
		var page ReplayPageResult
		err := workflow.ExecuteActivity(ctx, ActivityReplayPage, ReplayPageInput{BacktestID: in.BacktestID, OrgID: in.OrgID, After: st.After, Limit: BacktestPageSize}).Get(ctx, &page)
		if err != nil {
			return finish(ctx, in, st, err)
		}
		st.Report.Merge(page.Report)
		st.Done += int64(page.Count)
		if page.Last != "" {
			st.After = page.Last
		}
		workflow.SetCurrentDetails(ctx, fmt.Sprintf("replayed %d of %d decisions; %d would change", st.Done, page.Total, st.Report.Changed))
		if page.Count < BacktestPageSize {
			return finish(ctx, in, st, nil)
		}
		if err := save(ctx, in, st, "running", ""); err != nil {
			return finish(ctx, in, st, err)
		}
		if workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			next := in
			next.State = &st
			return workflow.NewContinueAsNewError(ctx, Backtest, next)
		}
	}
}

// ErrTypeBacktest marks a backtest that cannot run (its version does not compile, it vanished).
const ErrTypeBacktest = "FraudBacktestInvalid"

// finish records the end: completed, cancelled (on a disconnected context, as the workflow's
// own is cancelled) or failed.
func finish(ctx workflow.Context, in BacktestInput, st BacktestState, err error) error {
	switch {
	case err == nil:
		if err := save(ctx, in, st, "completed", ""); err != nil {
			return err
		}
		_, err := workflows.PublishEvent(ctx, in.OrgID, events.FraudBacktestCompleted, "completed", map[string]any{
			"backtestId": in.BacktestID, "ruleSetId": in.RuleSetID, "version": in.Version,
			"evaluated": st.Report.Evaluated, "changed": st.Report.Changed,
		})
		return err
	case temporal.IsCanceledError(err) || errors.Is(ctx.Err(), workflow.ErrCanceled):
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		if serr := save(dctx, in, st, "cancelled", ""); serr != nil {
			return serr
		}
		return err
	default:
		if serr := save(ctx, in, st, "failed", err.Error()); serr != nil {
			return serr
		}
		return err
	}
}

func save(ctx workflow.Context, in BacktestInput, st BacktestState, status, msg string) error {
	return workflow.ExecuteActivity(ctx, ActivitySaveBacktest, SaveBacktestInput{
		BacktestID: in.BacktestID, OrgID: in.OrgID, Status: status, Error: msg, Done: st.Done, Report: st.Report,
	}).Get(ctx, nil)
}

// BacktestStartOptions starts the backtest's workflow once: its workflow id is the backtest's
// id, found in the Temporal UI by OrgId and WorkflowSlug "fraud-backtest".
func BacktestStartOptions(backtestID, orgID string) client.StartWorkflowOptions {
	return workflows.ProductStart(backtestID, workflows.QueueFraud, "fraud backtest "+backtestID, orgID, "fraud-backtest", "")
}
