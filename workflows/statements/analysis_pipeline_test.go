package statements

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	stmt "github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/workflows"
	"github.com/svcplatform/svc/workflows/workflowtest"
)

// fakeAnalyses stands in for activities/statements.Activities (run on real files through
// the whole stack in e2e): it answers each stage from a script, keeps every write and checks
// every event against the catalog.
type fakeAnalyses struct {
	t       *testing.T
	inspect func(round int) (InspectResult, error)
	parse   func() (ParseSummary, error)
	analyze AnalyzeSummary

	mu       sync.Mutex
	rounds   int
	records  []AnalysisRecord
	finishes []FinishAnalysisInput
	events   []workflows.PublishEventInput
}

func (f *fakeAnalyses) AcceptAnalysis(context.Context, AnalysisRef) error { return nil }

func (f *fakeAnalyses) InspectAnalysis(context.Context, AnalysisRef) (InspectResult, error) {
	f.mu.Lock()
	n := f.rounds
	f.rounds++
	f.mu.Unlock()
	if f.inspect == nil {
		return InspectResult{Kinds: []stmt.Kind{stmt.KindPDF}, Pages: 2}, nil
	}
	return f.inspect(n)
}

func (f *fakeAnalyses) ReadAnalysisText(context.Context, AnalysisRef) (TextSummary, error) {
	return TextSummary{TextKeys: []string{"text-key"}, Pages: 2, MeanConfidence: 1}, nil
}

func (f *fakeAnalyses) ParseAnalysis(context.Context, ParseInput) (ParseSummary, error) {
	if f.parse == nil {
		return ParseSummary{Key: "parsed", Statements: 1, Transactions: 30}, nil
	}
	return f.parse()
}

func (f *fakeAnalyses) AnalyzeAnalysis(context.Context, AnalyzeInput) (AnalyzeSummary, error) {
	return f.analyze, nil
}

func (f *fakeAnalyses) RecordAnalysis(_ context.Context, rec AnalysisRecord) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.records = append(f.records, rec)
	for _, ev := range rec.Events {
		f.events = workflowtest.CheckedEvent(f.t, f.events, ev)
	}
	return nil
}

func (f *fakeAnalyses) FinishAnalysis(_ context.Context, in FinishAnalysisInput) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finishes = append(f.finishes, in)
	f.events = workflowtest.CheckedEvent(f.t, f.events, in.Event)
	return nil
}

func runPipeline(t *testing.T, f *fakeAnalyses, in AnalysisInput) error {
	t.Helper()
	env := workflowtest.NewEnv()
	env.RegisterWorkflowWithOptions(AnalysisPipeline, workflow.RegisterOptions{Name: AnalysisPipelineName})
	for name, fn := range map[string]any{
		ActivityAcceptAnalysis: f.AcceptAnalysis, ActivityInspectAnalysis: f.InspectAnalysis, ActivityReadAnalysisText: f.ReadAnalysisText,
		ActivityParseAnalysis: f.ParseAnalysis, ActivityAnalyzeAnalysis: f.AnalyzeAnalysis, ActivityRecordAnalysis: f.RecordAnalysis,
		ActivityFinishAnalysis: f.FinishAnalysis,
	} {
		env.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
	env.ExecuteWorkflow(AnalysisPipelineName, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the pipeline did not complete")
	}
	return env.GetWorkflowError()
}

var testInput = AnalysisInput{AnalysisID: "ana_01jx0000000000000000000000", OrgID: "org_test", Files: 1, ExternalRef: "loan-1", PasswordTimeout: time.Hour}

// TestPipelineRequiresReview: a decided result that needs review is stored with
// analysis.requires_review carrying its reasons.
func TestPipelineRequiresReview(t *testing.T) {
	f := &fakeAnalyses{t: t, analyze: AnalyzeSummary{Key: "result", Status: stmt.StatusRequiresReview, Reasons: []string{"reconciliation failed"},
		Statements: 1, Transactions: 30, Risk: 30}}
	if err := runPipeline(t, f, testInput); err != nil {
		t.Fatal(err)
	}
	if len(f.finishes) != 1 || f.finishes[0].ResultKey != "result" {
		t.Fatalf("finishes %+v", f.finishes)
	}
	if names := workflowtest.Names(f.events); len(names) != 1 || names[0] != "analysis.requires_review" {
		t.Fatalf("events %v", names)
	}
	workflowtest.SameJSON(t, "reasons", f.events[0].Data["reasons"], []string{"reconciliation failed"})
}

// TestPipelineFailsInTheStageTheActivityNames: a parse activity that could not detect the
// bank fails the analysis in detect (the stage its error names), with analysis.failed.
func TestPipelineFailsInTheStageTheActivityNames(t *testing.T) {
	f := &fakeAnalyses{t: t, parse: func() (ParseSummary, error) {
		return ParseSummary{}, temporal.NewNonRetryableApplicationError("no bank template matches the statement", ErrTypeAnalysisUnreadable, nil, stmt.StageDetect)
	}}
	if err := runPipeline(t, f, testInput); err == nil {
		t.Fatal("the run of a failed analysis must fail")
	}
	last := f.records[len(f.records)-1]
	if last.Status != stmt.StatusFailed || last.FailedStage != stmt.StageDetect || !last.ForgetPassword {
		t.Fatalf("record %+v", last)
	}
	if ev := f.events[len(f.events)-1]; ev.Event != "analysis.failed" || ev.Data["stage"] != "detect" || ev.Data["externalRef"] != "loan-1" {
		t.Fatalf("event %+v", ev)
	}
}

// TestPipelinePasswordTimeout: an encrypted PDF without a password waits for
// PasswordTimeout, then fails in inspect; the wait published analysis.password_required.
func TestPipelinePasswordTimeout(t *testing.T) {
	f := &fakeAnalyses{t: t, inspect: func(int) (InspectResult, error) {
		return InspectResult{PasswordRequired: true, Message: "a password is needed"}, nil
	}}
	if err := runPipeline(t, f, testInput); err == nil {
		t.Fatal("want a failed run")
	}
	if names := workflowtest.Names(f.events); len(names) != 2 || names[0] != "analysis.password_required" || names[1] != "analysis.failed" {
		t.Fatalf("events %v", names)
	}
	if f.events[1].Data["stage"] != "inspect" {
		t.Errorf("failed %+v", f.events[1].Data)
	}
}
