// Package documents holds the documents product's Temporal workflows: DocumentPipeline and
// DocumentCorrection. Deterministic code only.
package documents

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/workflows"
)

// DocumentPipeline takes one stored document through the documents product's stages (SPEC 3.2), each an
// activity that reads what it needs from the stores by the document's id (the workflow id):
//
//   - accept: uploaded → processing, document.uploaded.
//   - inspect: a PDF that needs a user password and has none, or a wrong one → status
//     password_required and document.password_required; the run then waits (up to
//     PasswordTimeout) for the document-password Update, which the API sends once it has
//     stored a new password, sealed, and tries again; the Update answers with the outcome. A
//     corrupt or unsupported file → failed (stage inspect), not retried.
//   - text: the PDF's text layer or OCR, kept in the blob store (it can be large: only its
//     summary enters the history).
//   - classify, unless a type hint was given: document.classified, and template.matched
//     when a custom template won.
//   - extract, decide (at the organisation's threshold): status extracted with
//     document.extracted, or requires_review with document.requires_review.
//
// Any stage failure ends the document failed with document.failed {errorMessage, stage}; the
// run then fails too (ErrTypeDocumentFailed), so the Temporal UI shows it. Bookkeeping
// activities (store writes and their events) retry until they succeed; stage activities
// retry tool failures a few times and never retry what retrying cannot fix. The password
// is never in the history: only the fact that one was given.
//
// Inspect and text, which run external programs and can take minutes, are regular
// activities (text on its own queue, one per core). The short ones (bookkeeping, classify,
// extract, decide: milliseconds of store writes and pure code) are local activities: the
// worker runs them in the workflow task, without a round trip through the Temporal server
// for each, which took text PDFs from about 420 to about 750 documents per minute on the
// embedded stack (bench/documents_test.go). They are retried alike and show in the history
// as markers.
func DocumentPipeline(ctx workflow.Context, in DocumentInput) (DocumentResult, error) {
	r := &docRun{in: in, status: docintel.StatusUploaded, stableIDs: workflows.StableIDs(ctx)}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateDocumentPassword, r.retryPassword,
		workflow.UpdateHandlerOptions{Validator: r.validatePassword, Description: "try the password the API stored for the document"}); err != nil {
		return DocumentResult{}, err
	}
	res, err := r.run(ctx)
	// A password Update still waiting for its answer gets it before the run closes.
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	return res, err
}

// docRun is the state of one pipeline run.
type docRun struct {
	in     DocumentInput
	status docintel.Status
	stage  docintel.Stage
	// waiting is set while the run waits for a password in inspect round `round` (0 for the
	// first inspection); retries counts the accepted document-password Updates, inspected the
	// inspect rounds that finished (their bookkeeping included), so the Update of retry n
	// answers once round n has finished.
	waiting   bool
	round     int
	retries   int
	inspected int
	done      bool
	// stableIDs: a run of workflows.VersionStableIDs names its extraction and events without workflow.Now.
	stableIDs bool
}

// stageError ends a document as failed in a stage, with a message safe to show.
type stageError struct {
	stage docintel.Stage
	msg   string
}

func (f *stageError) Error() string { return string(f.stage) + ": " + f.msg }

func (r *docRun) ref() DocumentRef {
	return DocumentRef{OrgID: r.in.OrgID, DocumentID: r.in.DocumentID}
}

func (r *docRun) run(ctx workflow.Context) (DocumentResult, error) {
	r.stage = "accept"
	workflow.SetCurrentDetails(ctx, "Accepting "+r.in.Filename)
	accept := AcceptDocumentInput{Ref: r.ref(), Event: r.event(ctx, events.DocumentUploaded, "uploaded", map[string]any{
		"documentId": r.in.DocumentID, "type": workflows.OrNull(r.in.TypeHint), "filename": r.in.Filename,
		"sha256": r.in.SHA256, "externalRef": workflows.OrNull(r.in.ExternalRef),
	})}
	if err := workflow.ExecuteLocalActivity(workflows.BookkeepingLocal(ctx, "accept"), ActivityAcceptDocument, accept).Get(ctx, nil); err != nil {
		return r.fail(ctx, err)
	}
	r.status = docintel.StatusProcessing

	if err := r.inspect(ctx); err != nil {
		return r.fail(ctx, err)
	}

	r.stage = docintel.StageText
	workflow.SetCurrentDetails(ctx, "Reading the text")
	var text TextSummary
	if err := workflow.ExecuteActivity(textCtx(ctx), ActivityReadDocumentText, r.ref()).Get(ctx, &text); err != nil {
		return r.fail(ctx, err)
	}

	docType, templateID := r.in.TypeHint, ""
	if docType == "" {
		r.stage = docintel.StageClassify
		workflow.SetCurrentDetails(ctx, "Classifying")
		var cls docintel.Classification
		if err := workflow.ExecuteLocalActivity(localStageCtx(ctx, docintel.StageClassify), ActivityClassifyDocument, r.ref()).Get(ctx, &cls); err != nil {
			return r.fail(ctx, err)
		}
		docType, templateID = cls.Type, cls.TemplateID
		if err := r.recordClassification(ctx, cls); err != nil {
			return r.fail(ctx, err)
		}
	}

	r.stage = docintel.StageExtract
	workflow.SetCurrentDetails(ctx, "Extracting the fields of a "+docType+" document")
	var x docintel.Extraction
	in := ExtractInput{Ref: r.ref(), Type: docType, TemplateID: templateID}
	if err := workflow.ExecuteLocalActivity(localStageCtx(ctx, docintel.StageExtract), ActivityExtractDocument, in).Get(ctx, &x); err != nil {
		return r.fail(ctx, err)
	}

	r.stage = docintel.StageDecide
	var d docintel.Decision
	if err := workflow.ExecuteLocalActivity(localStageCtx(ctx, docintel.StageDecide), ActivityDecideDocument, DecideInput{Ref: r.ref(), Extraction: &x}).Get(ctx, &d); err != nil {
		return r.fail(ctx, err)
	}
	return r.finish(ctx, &x, &d)
}

// inspect runs the inspect stage, waiting for passwords while the file needs one.
func (r *docRun) inspect(ctx workflow.Context) error {
	r.stage = docintel.StageInspect
	for round := 0; ; round++ {
		workflow.SetCurrentDetails(ctx, "Inspecting the file")
		var res InspectResult
		if err := workflow.ExecuteActivity(stageCtx(ctx, docintel.StageInspect, 2*time.Minute), ActivityInspectDocument, r.ref()).Get(ctx, &res); err != nil {
			return err
		}
		if !res.PasswordRequired {
			r.waiting = false
			r.status = docintel.StatusProcessing
			r.inspected++
			return nil
		}
		// Waiting starts before the status is stored: an Update sent as soon as the API reads
		// password_required is accepted.
		r.waiting, r.round = true, round
		rec := DocumentRecord{Ref: r.ref(), Status: docintel.StatusPasswordRequired, ForgetPassword: true,
			Events: []workflows.PublishEventInput{r.event(ctx, events.DocumentPasswordRequired, "password_required:"+strconv.Itoa(round),
				map[string]any{"documentId": r.in.DocumentID, "errorMessage": res.Message})}}
		if err := workflow.ExecuteLocalActivity(workflows.BookkeepingLocal(ctx, "password required"), ActivityRecordDocument, rec).Get(ctx, nil); err != nil {
			return err
		}
		r.status = docintel.StatusPasswordRequired
		r.inspected++
		workflow.SetCurrentDetails(ctx, fmt.Sprintf("Waiting for the password (until %s)",
			workflow.Now(ctx).Add(r.in.PasswordTimeout).UTC().Format(time.RFC3339)))
		got, err := workflow.AwaitWithTimeout(ctx, r.in.PasswordTimeout, func() bool { return r.retries > round })
		if err != nil {
			return err // cancelled
		}
		r.waiting = false
		if !got {
			return &stageError{stage: docintel.StageInspect, msg: "no password was given within " + r.in.PasswordTimeout.String()}
		}
		r.status = docintel.StatusProcessing // as the API stored it, with the password
	}
}

// validatePassword accepts a document-password Update only while the run waits for a
// password and has not been given one for this round; otherwise it answers the SPEC 3.5
// conflict, before anything enters the history.
func (r *docRun) validatePassword(ctx workflow.Context, req PasswordRetry) error {
	if !r.waiting || r.retries > r.round {
		return workflows.StateConflictError(string(r.status), string(docintel.StatusProcessing))
	}
	return nil
}

// retryPassword lets the waiting run try the stored password and answers with the outcome.
func (r *docRun) retryPassword(ctx workflow.Context, req PasswordRetry) (PasswordRetryResult, error) {
	r.retries++
	n := r.retries
	err := workflow.Await(ctx, func() bool { return r.inspected > n || r.done })
	return PasswordRetryResult{Status: r.status}, err
}

// recordClassification stores the classified type and publishes document.classified, and
// template.matched when a template won.
func (r *docRun) recordClassification(ctx workflow.Context, c docintel.Classification) error {
	conf := c.Confidence
	rec := DocumentRecord{Ref: r.ref(), Type: c.Type, ClassificationConfidence: &conf, TemplateID: c.TemplateID,
		Events: []workflows.PublishEventInput{r.event(ctx, events.DocumentClassified, "classified", map[string]any{
			"documentId": r.in.DocumentID, "type": c.Type, "classificationConfidence": c.Confidence,
		})}}
	if c.TemplateID != "" {
		rec.Events = append(rec.Events, r.event(ctx, events.TemplateMatched, "template_matched", map[string]any{
			"documentId": r.in.DocumentID, "templateId": c.TemplateID, "matchConfidence": c.MatchConfidence,
		}))
	}
	return workflow.ExecuteLocalActivity(workflows.BookkeepingLocal(ctx, "classified as "+c.Type), ActivityRecordDocument, rec).Get(ctx, nil)
}

// finish stores the extraction and the decided status with its event.
func (r *docRun) finish(ctx workflow.Context, x *docintel.Extraction, d *docintel.Decision) (DocumentResult, error) {
	now := workflow.Now(ctx).UTC()
	extID := ids.DeriveFrom(ids.Extraction, now, r.in.DocumentID, "pipeline")
	if r.stableIDs {
		extID = ids.Within(ids.Extraction, r.in.DocumentID, "pipeline")
	}
	var ev workflows.PublishEventInput
	if d.Status == docintel.StatusExtracted {
		//workflowcheck:ignore (Values builds a map: iteration order cannot show)
		ev = r.event(ctx, events.DocumentExtracted, "decided", map[string]any{
			"documentId": r.in.DocumentID, "extractionId": extID, "type": x.Type,
			"confidenceScore": d.ConfidenceScore, "fields": d.Values(),
		})
	} else {
		flags := d.Flags
		if flags == nil {
			flags = []string{}
		}
		ev = r.event(ctx, events.DocumentRequiresReview, "decided", map[string]any{
			"documentId": r.in.DocumentID, "extractionId": extID, "confidenceScore": d.ConfidenceScore, "flags": flags,
		})
	}
	in := FinishDocumentInput{Ref: r.ref(), ExtractionID: extID, Extraction: x, Decision: d, CompletedAt: now, Event: ev}
	if err := workflow.ExecuteLocalActivity(workflows.BookkeepingLocal(ctx, string(d.Status)), ActivityFinishDocument, in).Get(ctx, nil); err != nil {
		return r.fail(ctx, err)
	}
	r.status, r.done = d.Status, true
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("%s (confidence %.3f)", d.Status, d.ConfidenceScore))
	return DocumentResult{Status: d.Status, Type: x.Type, ExtractionID: extID, ConfidenceScore: d.ConfidenceScore}, nil
}

// fail ends the document as failed in the current stage with document.failed. The message
// is the stage's safe message (docintel.Message through the activity error), never an
// internal error. The bookkeeping runs on a disconnected context, so a cancelled run records
// its end too.
func (r *docRun) fail(ctx workflow.Context, err error) (DocumentResult, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	f := r.failure(ctx, err)
	now := workflow.Now(ctx).UTC()
	rec := DocumentRecord{Ref: r.ref(), Status: docintel.StatusFailed, FailedStage: f.stage, ErrorMessage: f.msg,
		ForgetPassword: true, CompletedAt: &now,
		Events: []workflows.PublishEventInput{r.event(ctx, events.DocumentFailed, "failed", map[string]any{
			"documentId": r.in.DocumentID, "errorMessage": f.msg, "stage": string(f.stage),
		})}}
	if err := workflow.ExecuteLocalActivity(workflows.BookkeepingLocal(dctx, "failed in "+string(f.stage)), ActivityRecordDocument, rec).Get(dctx, nil); err != nil {
		return DocumentResult{}, err
	}
	r.status, r.done = docintel.StatusFailed, true
	workflow.SetCurrentDetails(ctx, "Failed in "+string(f.stage)+": "+f.msg)
	return DocumentResult{}, temporal.NewNonRetryableApplicationError(f.msg, ErrTypeDocumentFailed, nil,
		map[string]any{"stage": string(f.stage)})
}

// failure says in which stage and why a run stops on err.
func (r *docRun) failure(ctx workflow.Context, err error) *stageError {
	var f *stageError
	if errors.As(err, &f) {
		return f
	}
	stage := r.stage
	if stage == "accept" {
		stage = docintel.StageInspect // document.failed names pipeline stages; accepting is the start of inspection
	}
	if ctx.Err() != nil {
		return &stageError{stage: stage, msg: "processing was cancelled"}
	}
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) && (ae.Type() == ErrTypeDocumentUnreadable || ae.Type() == ErrTypeDocumentTool) {
		return &stageError{stage: stage, msg: ae.Message()}
	}
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		return &stageError{stage: stage, msg: "the " + string(stage) + " stage timed out"}
	}
	// An internal error (store, blob store) after its retries: its text is for the logs.
	return &stageError{stage: stage, msg: docintel.Message(err)}
}

// event prepares one event for a bookkeeping activity: its evt_ id derives from the document,
// key and name, and its time is the workflow's, so a retried activity publishes the same event.
func (r *docRun) event(ctx workflow.Context, name, key string, data map[string]any) workflows.PublishEventInput {
	return workflows.RunEventInput(ctx, r.stableIDs, r.in.OrgID, r.in.DocumentID, name, key, data)
}

// stageCtx sets the options of a stage run as a regular activity (inspect, text).
func stageCtx(ctx workflow.Context, stage docintel.Stage, timeout time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: timeout,
		RetryPolicy:         stageRetry(),
		Summary:             string(stage),
	})
}

// TextTimeout bounds one ReadDocumentText attempt: a five-page degraded scan can need four
// tesseract runs per page.
const TextTimeout = 5 * time.Minute

// textCtx runs the text stage on its own queue, where the worker runs about one at a time
// per core (OCR is CPU-bound), heartbeating so that a lost worker is noticed early.
func textCtx(ctx workflow.Context) workflow.Context {
	ctx = stageCtx(ctx, docintel.StageText, TextTimeout)
	opts := workflow.GetActivityOptions(ctx)
	opts.TaskQueue = workflows.QueueDocumentsText
	opts.HeartbeatTimeout = 30 * time.Second
	opts.RetryPolicy.MaximumAttempts = 3
	return workflow.WithActivityOptions(ctx, opts)
}

// localStageCtx sets the options of a short stage (classify, extract, decide) run as a local
// activity: the retries of stageCtx.
func localStageCtx(ctx workflow.Context, stage docintel.Stage) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         stageRetry(),
		Summary:             string(stage),
	})
}

// stageRetry is the retry policy of the stages: a few attempts for tool failures and
// transient store errors, none for what retrying cannot fix.
func stageRetry() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval:        2 * time.Second,
		BackoffCoefficient:     2,
		MaximumInterval:        30 * time.Second,
		MaximumAttempts:        5,
		NonRetryableErrorTypes: []string{ErrTypeDocumentUnreadable},
	}
}
