package fraud

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	engine "github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/workflows"
)

// pages serves n full pages and then a short one, each decision changing from approve to review.
type pages struct {
	full   int
	saves  []SaveBacktestInput
	events []workflows.PublishEventInput
	block  chan struct{}
	// fail, when set, is what every replay returns.
	fail error
}

func (p *pages) replay(_ context.Context, in ReplayPageInput) (ReplayPageResult, error) {
	if p.fail != nil {
		return ReplayPageResult{}, p.fail
	}
	served := 0
	if in.After != "" {
		served = int(in.After[0]-'a') + 1
	}
	if p.block != nil && served == 1 {
		<-p.block
	}
	count := in.Limit
	if served >= p.full {
		count = 7
	}
	r := engine.NewBacktestReport()
	r.Evaluated, r.Changed = count, count
	r.LiveOutcomes[engine.OutcomeApprove] = count
	r.CandidateOutcomes[engine.OutcomeReview] = count
	return ReplayPageResult{Report: r, Count: count, Last: string(rune('a' + served)), Total: int64(p.full*in.Limit + 7)}, nil
}

func (p *pages) save(_ context.Context, in SaveBacktestInput) error {
	p.saves = append(p.saves, in)
	return nil
}

func env(t *testing.T, p *pages) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	e := suite.NewTestWorkflowEnvironment()
	e.RegisterWorkflowWithOptions(Backtest, workflow.RegisterOptions{Name: BacktestName})
	e.RegisterActivityWithOptions(p.replay, activity.RegisterOptions{Name: ActivityReplayPage})
	e.RegisterActivityWithOptions(p.save, activity.RegisterOptions{Name: ActivitySaveBacktest})
	e.RegisterActivityWithOptions(func(_ context.Context, in workflows.PublishEventInput) (workflows.PublishEventResult, error) {
		p.events = append(p.events, in)
		return workflows.PublishEventResult{EventID: in.EventID}, nil
	}, activity.RegisterOptions{Name: workflows.ActivityPublishEvent})
	return e
}

func TestBacktestMergesPagesAndCompletes(t *testing.T) {
	p := &pages{full: 2}
	e := env(t, p)
	e.ExecuteWorkflow(BacktestName, BacktestInput{BacktestID: "bkt_1", OrgID: "org_1"})
	if !e.IsWorkflowCompleted() || e.GetWorkflowError() != nil {
		t.Fatalf("completed %v, error %v", e.IsWorkflowCompleted(), e.GetWorkflowError())
	}
	if len(p.saves) != 3 {
		t.Fatalf("saves %d, want a progress save per full page and the final one", len(p.saves))
	}
	final := p.saves[2]
	want := int64(2*BacktestPageSize + 7)
	if len(p.events) != 1 || p.events[0].Event != "fraud.backtest.completed" || p.events[0].Data["changed"] != float64(want) {
		t.Errorf("events %+v", p.events)
	}
	if final.Status != "completed" || final.Done != want || final.Report.Evaluated != int(want) ||
		final.Report.CandidateOutcomes[engine.OutcomeReview] != int(want) {
		t.Errorf("final save %+v", final)
	}
	if p.saves[0].Status != "running" || p.saves[0].Done != BacktestPageSize {
		t.Errorf("first progress save %+v", p.saves[0])
	}
}

func TestBacktestCancelledRecordsItself(t *testing.T) {
	p := &pages{full: 3, block: make(chan struct{})}
	e := env(t, p)
	e.RegisterDelayedCallback(func() {
		e.CancelWorkflow()
		close(p.block)
	}, time.Second)
	e.ExecuteWorkflow(BacktestName, BacktestInput{BacktestID: "bkt_1", OrgID: "org_1"})
	if !temporal.IsCanceledError(e.GetWorkflowError()) {
		t.Fatalf("error %v, want cancelled", e.GetWorkflowError())
	}
	last := p.saves[len(p.saves)-1]
	if last.Status != "cancelled" || len(p.events) != 0 {
		t.Errorf("last save %+v", last)
	}
}

func TestBacktestFailureRecordsItself(t *testing.T) {
	p := &pages{fail: temporal.NewNonRetryableApplicationError("version 3 does not compile", ErrTypeBacktest, errors.New("x"))}
	e := env(t, p)
	e.ExecuteWorkflow(BacktestName, BacktestInput{BacktestID: "bkt_1", OrgID: "org_1"})
	if e.GetWorkflowError() == nil || len(p.saves) != 1 || p.saves[0].Status != "failed" {
		t.Fatalf("error %v saves %+v", e.GetWorkflowError(), p.saves)
	}
}
