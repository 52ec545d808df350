// Package statements holds the bank statement analysis product's Temporal workflows:
// AnalysisPipeline and AnalysisCorrection. Deterministic code only.
package statements

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/events"
	stmt "github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/workflows"
)

// AnalysisPipeline takes one stored analysis (one or more files of one account) through
// the statements product's stages, each an activity that reads what it needs from the
// stores by the analysis id (the workflow id):
//
//   - accept: uploaded → processing.
//   - inspect: every file's kind; a PDF that needs a user password and has none, or a
//     wrong one → password_required and analysis.password_required, then the run waits (up
//     to PasswordTimeout) for the analysis-password Update, exactly as documents do.
//   - text: the PDFs' text layer or OCR (the documents engine), on the documents' text
//     queue; kept in the blob store, only keys enter the history.
//   - detect and parse: the bank template of each PDF, then its transactions; CSV, OFX/QFX
//     and CAMT.053 files are parsed from their bytes.
//   - reconcile, insights, signals, decide: one activity (pure computation over the parsed
//     statements), whose result is kept in the blob store.
//   - finish: the result stored as version 1, status completed with analysis.completed or
//     requires_review with analysis.requires_review.
//
// Any stage failure ends the analysis failed with analysis.failed {errorMessage, stage};
// the run then fails too (ErrTypeAnalysisFailed). The password is never in the history.
func AnalysisPipeline(ctx workflow.Context, in AnalysisInput) (AnalysisResult, error) {
	r := &anaRun{in: in, status: stmt.StatusUploaded, stableIDs: workflows.StableIDs(ctx)}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateAnalysisPassword, r.retryPassword,
		workflow.UpdateHandlerOptions{Validator: r.validatePassword, Description: "try the password the API stored for the analysis"}); err != nil {
		return AnalysisResult{}, err
	}
	res, err := r.run(ctx)
	// A password Update still waiting for its answer gets it before the run closes.
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	return res, err
}

// anaRun is the state of one pipeline run (as docRun of the documents pipeline).
type anaRun struct {
	// stableIDs: a run of workflows.VersionStableIDs names its events without workflow.Now.
	stableIDs bool
	in        AnalysisInput
	status    stmt.Status
	stage     stmt.Stage
	waiting   bool
	round     int
	retries   int
	inspected int
	done      bool
}

// stageError ends an analysis as failed in a stage, with a message safe to show.
type stageError struct {
	stage stmt.Stage
	msg   string
}

func (f *stageError) Error() string { return string(f.stage) + ": " + f.msg }

func (r *anaRun) ref() AnalysisRef {
	return AnalysisRef{OrgID: r.in.OrgID, AnalysisID: r.in.AnalysisID}
}

func (r *anaRun) run(ctx workflow.Context) (AnalysisResult, error) {
	r.stage = stmt.StageInspect
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Accepting %d file(s)", r.in.Files))
	if err := workflow.ExecuteLocalActivity(workflows.BookkeepingLocal(ctx, "accept"), ActivityAcceptAnalysis, r.ref()).Get(ctx, nil); err != nil {
		return r.fail(ctx, err)
	}
	r.status = stmt.StatusProcessing

	if err := r.inspect(ctx); err != nil {
		return r.fail(ctx, err)
	}

	r.stage = stmt.StageText
	workflow.SetCurrentDetails(ctx, "Reading the text of the PDFs")
	var text TextSummary
	if err := workflow.ExecuteActivity(textCtx(ctx), ActivityReadAnalysisText, r.ref()).Get(ctx, &text); err != nil {
		return r.fail(ctx, err)
	}

	r.stage = stmt.StageParse
	workflow.SetCurrentDetails(ctx, "Detecting the bank and parsing the transactions")
	var parsed ParseSummary
	pin := ParseInput{Ref: r.ref(), TextKeys: text.TextKeys}
	if err := workflow.ExecuteLocalActivity(localStageCtx(ctx, stmt.StageParse), ActivityParseAnalysis, pin).Get(ctx, &parsed); err != nil {
		return r.fail(ctx, err)
	}

	r.stage = stmt.StageReconcile
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Reconciling %d statement(s), %d transactions", parsed.Statements, parsed.Transactions))
	var sum AnalyzeSummary
	ain := AnalyzeInput{Ref: r.ref(), ParsedKey: parsed.Key}
	if err := workflow.ExecuteLocalActivity(localStageCtx(ctx, stmt.StageReconcile), ActivityAnalyzeAnalysis, ain).Get(ctx, &sum); err != nil {
		return r.fail(ctx, err)
	}
	return r.finish(ctx, &sum)
}

// inspect runs the inspect stage, waiting for passwords while a PDF needs one.
func (r *anaRun) inspect(ctx workflow.Context) error {
	r.stage = stmt.StageInspect
	for round := 0; ; round++ {
		workflow.SetCurrentDetails(ctx, "Inspecting the files")
		var res InspectResult
		if err := workflow.ExecuteActivity(stageCtx(ctx, stmt.StageInspect, 2*time.Minute), ActivityInspectAnalysis, r.ref()).Get(ctx, &res); err != nil {
			return err
		}
		if !res.PasswordRequired {
			r.waiting = false
			r.status = stmt.StatusProcessing
			r.inspected++
			return nil
		}
		// Waiting starts before the status is stored: an Update sent as soon as the API reads
		// password_required is accepted.
		r.waiting, r.round = true, round
		rec := AnalysisRecord{Ref: r.ref(), Status: stmt.StatusPasswordRequired, ForgetPassword: true,
			Events: []workflows.PublishEventInput{r.event(ctx, events.AnalysisPasswordRequired, "password_required:"+strconv.Itoa(round),
				map[string]any{"analysisId": r.in.AnalysisID, "errorMessage": res.Message, "externalRef": workflows.OrNull(r.in.ExternalRef)})}}
		if err := workflow.ExecuteLocalActivity(workflows.BookkeepingLocal(ctx, "password required"), ActivityRecordAnalysis, rec).Get(ctx, nil); err != nil {
			return err
		}
		r.status = stmt.StatusPasswordRequired
		r.inspected++
		workflow.SetCurrentDetails(ctx, fmt.Sprintf("Waiting for the password (until %s)",
			workflow.Now(ctx).Add(r.in.PasswordTimeout).UTC().Format(time.RFC3339)))
		got, err := workflow.AwaitWithTimeout(ctx, r.in.PasswordTimeout, func() bool { return r.retries > round })
		if err != nil {
			return err // cancelled
		}
		r.waiting = false
		if !got {
			return &stageError{stage: stmt.StageInspect, msg: "no password was given within " + r.in.PasswordTimeout.String()}
		}
		r.status = stmt.StatusProcessing // as the API stored it, with the password
	}
}

// validatePassword accepts an analysis-password Update only while the run waits for a
// password and has not been given one for this round; otherwise it answers the SPEC 3.5
// conflict, before anything enters the history.
func (r *anaRun) validatePassword(_ workflow.Context, _ PasswordRetry) error {
	if !r.waiting || r.retries > r.round {
		return workflows.StateConflictError(string(r.status), string(stmt.StatusProcessing))
	}
	return nil
}

// retryPassword lets the waiting run try the stored password and answers with the outcome.
func (r *anaRun) retryPassword(ctx workflow.Context, _ PasswordRetry) (PasswordRetryResult, error) {
	r.retries++
	n := r.retries
	err := workflow.Await(ctx, func() bool { return r.inspected > n || r.done })
	return PasswordRetryResult{Status: r.status}, err
}

// finish stores the decided result with its event.
func (r *anaRun) finish(ctx workflow.Context, s *AnalyzeSummary) (AnalysisResult, error) {
	r.stage = stmt.StageDecide
	now := workflow.Now(ctx).UTC()
	data := map[string]any{
		"analysisId": r.in.AnalysisID, "status": string(s.Status), "version": 1, "statements": s.Statements,
		"transactions": s.Transactions, "reconciled": s.Reconciled, "riskScore": s.Risk, "externalRef": workflows.OrNull(r.in.ExternalRef),
	}
	name := events.AnalysisCompleted
	if s.Status == stmt.StatusRequiresReview {
		name = events.AnalysisRequiresReview
		reasons := s.Reasons
		if reasons == nil {
			reasons = []string{}
		}
		data["reasons"] = reasons
	}
	in := FinishAnalysisInput{Ref: r.ref(), ResultKey: s.Key, CompletedAt: now, Event: r.event(ctx, name, "decided", data)}
	if err := workflow.ExecuteLocalActivity(workflows.BookkeepingLocal(ctx, string(s.Status)), ActivityFinishAnalysis, in).Get(ctx, nil); err != nil {
		return r.fail(ctx, err)
	}
	r.status, r.done = s.Status, true
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("%s (risk %d)", s.Status, s.Risk))
	return AnalysisResult{Status: s.Status, Risk: s.Risk}, nil
}

// fail ends the analysis as failed with analysis.failed, on a disconnected context so that
// a cancelled run records its end too.
func (r *anaRun) fail(ctx workflow.Context, err error) (AnalysisResult, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	f := r.failure(ctx, err)
	now := workflow.Now(ctx).UTC()
	rec := AnalysisRecord{Ref: r.ref(), Status: stmt.StatusFailed, FailedStage: f.stage, ErrorMessage: f.msg,
		ForgetPassword: true, CompletedAt: &now,
		Events: []workflows.PublishEventInput{r.event(ctx, events.AnalysisFailed, "failed", map[string]any{
			"analysisId": r.in.AnalysisID, "errorMessage": f.msg, "stage": string(f.stage), "externalRef": workflows.OrNull(r.in.ExternalRef),
		})}}
	if err := workflow.ExecuteLocalActivity(workflows.BookkeepingLocal(dctx, "failed in "+string(f.stage)), ActivityRecordAnalysis, rec).Get(dctx, nil); err != nil {
		return AnalysisResult{}, err
	}
	r.status, r.done = stmt.StatusFailed, true
	workflow.SetCurrentDetails(ctx, "Failed in "+string(f.stage)+": "+f.msg)
	return AnalysisResult{}, temporal.NewNonRetryableApplicationError(f.msg, ErrTypeAnalysisFailed, nil, map[string]any{"stage": string(f.stage)})
}

// failure says in which stage and why a run stops on err: the stage an activity names in
// its error's details (parse can fail in detect, the text stage in inspect), else the
// current one.
func (r *anaRun) failure(ctx workflow.Context, err error) *stageError {
	var f *stageError
	if errors.As(err, &f) {
		return f
	}
	stage := r.stage
	if ctx.Err() != nil {
		return &stageError{stage: stage, msg: "processing was cancelled"}
	}
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) && (ae.Type() == ErrTypeAnalysisUnreadable || ae.Type() == ErrTypeAnalysisTool) {
		var named stmt.Stage
		if ae.HasDetails() && ae.Details(&named) == nil && named != "" {
			stage = named
		}
		return &stageError{stage: stage, msg: ae.Message()}
	}
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		return &stageError{stage: stage, msg: "the " + string(stage) + " stage timed out"}
	}
	// An internal error (store, blob store) after its retries: its text is for the logs.
	return &stageError{stage: stage, msg: docintel.Message(err)}
}

// event prepares one event for a bookkeeping activity: its evt_ id derives from the
// analysis, key and name, and its time is the workflow's, so a retry publishes the same event.
func (r *anaRun) event(ctx workflow.Context, name, key string, data map[string]any) workflows.PublishEventInput {
	return workflows.RunEventInput(ctx, r.stableIDs, r.in.OrgID, r.in.AnalysisID, name, key, data)
}
