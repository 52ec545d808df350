package documents

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/workflows"
	"github.com/svcplatform/svc/workflows/workflowtest"
)

// fakeDocuments stands in for activities/documents.Activities (tested on real files in
// activities/documents/documents_test.go and through the whole stack in e2e): it answers each stage
// from a script, keeps every write and checks every event against the catalog.
type fakeDocuments struct {
	t *testing.T
	// inspect answers inspect round n (from 0); text, classify, extract and decide the others.
	inspect  func(round int) (InspectResult, error)
	text     func(attempt int) (TextSummary, error)
	classify docintel.Classification
	extract  docintel.Extraction
	decide   docintel.Decision

	mu       sync.Mutex
	calls    []string
	rounds   int
	accepted []AcceptDocumentInput
	records  []DocumentRecord
	finishes []FinishDocumentInput
	extracts []ExtractInput
	events   []workflows.PublishEventInput
}

func (f *fakeDocuments) called(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, name)
}

func (f *fakeDocuments) publish(ev workflows.PublishEventInput) {
	f.events = workflowtest.CheckedEvent(f.t, f.events, ev)
}

func (f *fakeDocuments) AcceptDocument(_ context.Context, in AcceptDocumentInput) error {
	f.called("accept")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.accepted = append(f.accepted, in)
	f.publish(in.Event)
	return nil
}

func (f *fakeDocuments) InspectDocument(_ context.Context, ref DocumentRef) (InspectResult, error) {
	f.called("inspect")
	f.mu.Lock()
	n := f.rounds
	f.rounds++
	f.mu.Unlock()
	if f.inspect == nil {
		return InspectResult{Format: docintel.FormatPDF, Pages: 1}, nil
	}
	return f.inspect(n)
}

func (f *fakeDocuments) ReadDocumentText(ctx context.Context, ref DocumentRef) (TextSummary, error) {
	f.called("text")
	if f.text == nil {
		return TextSummary{TextKey: "sha256/aa/aa", Source: docintel.SourceTextLayer, Pages: 1, Lines: 12, MeanConfidence: 0.99}, nil
	}
	return f.text(int(activity.GetInfo(ctx).Attempt))
}

func (f *fakeDocuments) ClassifyDocument(_ context.Context, ref DocumentRef) (docintel.Classification, error) {
	f.called("classify")
	return f.classify, nil
}

func (f *fakeDocuments) ExtractDocument(_ context.Context, in ExtractInput) (docintel.Extraction, error) {
	f.called("extract")
	f.mu.Lock()
	f.extracts = append(f.extracts, in)
	f.mu.Unlock()
	return f.extract, nil
}

func (f *fakeDocuments) DecideDocument(_ context.Context, in DecideInput) (docintel.Decision, error) {
	f.called("decide")
	if !reflect.DeepEqual(*in.Extraction, f.extract) {
		f.t.Errorf("decide got extraction %+v, want %+v", in.Extraction, f.extract)
	}
	return f.decide, nil
}

func (f *fakeDocuments) RecordDocument(_ context.Context, rec DocumentRecord) error {
	f.called("record:" + string(rec.Status))
	f.mu.Lock()
	defer f.mu.Unlock()
	f.records = append(f.records, rec)
	for _, ev := range rec.Events {
		f.publish(ev)
	}
	return nil
}

func (f *fakeDocuments) FinishDocument(_ context.Context, in FinishDocumentInput) error {
	f.called("finish")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finishes = append(f.finishes, in)
	f.publish(in.Event)
	return nil
}

func (f *fakeDocuments) eventNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return workflowtest.Names(f.events)
}

func (f *fakeDocuments) event(name string) workflows.PublishEventInput {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.events {
		if e.Event == name {
			return e
		}
	}
	f.t.Fatalf("no %s event in %v", name, workflowtest.Names(f.events))
	return workflows.PublishEventInput{}
}

var docInput = DocumentInput{
	DocumentID: "doc_01jx0000000000000000000000", OrgID: "org_test", Filename: "npwp.pdf", SHA256: strings.Repeat("ab", 32),
	ExternalRef: "customer-7", ExternalID: "upload-1", PasswordTimeout: 24 * time.Hour,
}

// npwpExtraction is what a clean NPWP card extracts to.
var npwpExtraction = docintel.Extraction{Type: "npwp", Source: docintel.SourceTextLayer, Order: []string{"npwp_number", "name"},
	Fields: map[string]docintel.Field{
		"npwp_number": {Value: "09.254.294.3-407.000", OCRConfidence: 0.99, Label: docintel.LabelExact, Required: true},
		"name":        {Value: "BUDI SANTOSO", OCRConfidence: 0.99, Label: docintel.LabelExact, Required: true},
	}}

func newFakeDocuments(t *testing.T) *fakeDocuments {
	d := docintel.Decide(&npwpExtraction, 0.8)
	return &fakeDocuments{t: t,
		classify: docintel.Classification{Type: "npwp", Confidence: 0.93, Scores: map[string]float64{"npwp": 0.93}},
		extract:  npwpExtraction, decide: *d}
}

// newPipeline prepares a test environment running DocumentPipeline with f as its activities.
func newPipeline(t *testing.T, f *fakeDocuments) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	env := workflowtest.NewEnv()
	env.RegisterWorkflowWithOptions(DocumentPipeline, workflow.RegisterOptions{Name: DocumentPipelineName})
	for name, fn := range map[string]any{
		ActivityAcceptDocument: f.AcceptDocument, ActivityInspectDocument: f.InspectDocument, ActivityReadDocumentText: f.ReadDocumentText,
		ActivityClassifyDocument: f.ClassifyDocument, ActivityExtractDocument: f.ExtractDocument, ActivityDecideDocument: f.DecideDocument,
		ActivityRecordDocument: f.RecordDocument, ActivityFinishDocument: f.FinishDocument,
	} {
		env.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
	return env
}

func dataKeys(ev workflows.PublishEventInput) []string {
	var out []string
	for k := range ev.Data {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestDocumentPipelineExtracted(t *testing.T) {
	f := newFakeDocuments(t)
	env := newPipeline(t, f)
	env.ExecuteWorkflow(DocumentPipelineName, docInput)
	res := workflowtest.Result[DocumentResult](t, env)

	if want := []string{"accept", "inspect", "text", "classify", "record:", "extract", "decide", "finish"}; !reflect.DeepEqual(f.calls, want) {
		t.Fatalf("activities %v, want %v", f.calls, want)
	}
	if want := []string{events.DocumentUploaded, events.DocumentClassified, events.DocumentExtracted}; !reflect.DeepEqual(f.eventNames(), want) {
		t.Fatalf("events %v, want %v", f.eventNames(), want)
	}
	up := f.event(events.DocumentUploaded)
	workflowtest.SameJSON(t, "document.uploaded data", up.Data, map[string]any{"documentId": docInput.DocumentID, "externalRef": "customer-7",
		"filename": "npwp.pdf", "sha256": docInput.SHA256, "type": nil})
	cls := f.event(events.DocumentClassified)
	workflowtest.SameJSON(t, "document.classified data", cls.Data, map[string]any{"classificationConfidence": 0.93, "documentId": docInput.DocumentID, "type": "npwp"})
	if rec := f.records[0]; rec.Type != "npwp" || *rec.ClassificationConfidence != 0.93 || rec.Status != "" || rec.TemplateID != "" {
		t.Errorf("classification record %+v", rec)
	}
	if got := f.extracts[0]; got.Type != "npwp" || got.TemplateID != "" || got.Ref.DocumentID != docInput.DocumentID || got.Ref.OrgID != "org_test" {
		t.Errorf("extract input %+v", got)
	}
	fin := f.finishes[0]
	if !ids.Valid(ids.Extraction, fin.ExtractionID) || fin.Decision.Status != docintel.StatusExtracted {
		t.Fatalf("finish %+v", fin)
	}
	ex := f.event(events.DocumentExtracted)
	workflowtest.SameJSON(t, "document.extracted data", ex.Data, map[string]any{"confidenceScore": fin.Decision.ConfidenceScore, "documentId": docInput.DocumentID,
		"extractionId": fin.ExtractionID, "fields": map[string]string{"name": "BUDI SANTOSO", "npwp_number": "09.254.294.3-407.000"}, "type": "npwp"})
	if res.Status != docintel.StatusExtracted || res.ExtractionID != fin.ExtractionID || res.Type != "npwp" || res.ConfidenceScore < 0.8 {
		t.Errorf("result %+v", res)
	}
	// Event ids are distinct and derived from the document.
	seen := map[string]bool{}
	for _, e := range f.events {
		if seen[e.EventID] {
			t.Errorf("event id %s used twice", e.EventID)
		}
		seen[e.EventID] = true
	}
}

func TestDocumentPipelineTypeHintSkipsClassification(t *testing.T) {
	f := newFakeDocuments(t)
	env := newPipeline(t, f)
	in := docInput
	in.TypeHint = "npwp"
	env.ExecuteWorkflow(DocumentPipelineName, in)
	workflowtest.Result[DocumentResult](t, env)
	if want := []string{"accept", "inspect", "text", "extract", "decide", "finish"}; !reflect.DeepEqual(f.calls, want) {
		t.Fatalf("activities %v, want %v", f.calls, want)
	}
	if want := []string{events.DocumentUploaded, events.DocumentExtracted}; !reflect.DeepEqual(f.eventNames(), want) {
		t.Fatalf("events %v, want %v", f.eventNames(), want)
	}
	if f.event(events.DocumentUploaded).Data["type"] != "npwp" || f.extracts[0].Type != "npwp" {
		t.Errorf("the hint was not used: %+v %+v", f.event(events.DocumentUploaded).Data, f.extracts[0])
	}
}

func TestDocumentPipelineTemplateMatchedAndReview(t *testing.T) {
	f := newFakeDocuments(t)
	f.classify = docintel.Classification{Type: "invoice", Confidence: 0.7, TemplateID: "tpl_1", MatchConfidence: 0.7}
	f.extract = docintel.Extraction{Type: "invoice", TemplateID: "tpl_1", Fields: map[string]docintel.Field{
		"total": {Value: "12", OCRConfidence: 0.6, Label: docintel.LabelFuzzy, Required: true}}}
	f.decide = *docintel.Decide(&f.extract, 0.8)
	env := newPipeline(t, f)
	env.ExecuteWorkflow(DocumentPipelineName, docInput)
	res := workflowtest.Result[DocumentResult](t, env)
	if want := []string{events.DocumentUploaded, events.DocumentClassified, events.TemplateMatched, events.DocumentRequiresReview}; !reflect.DeepEqual(f.eventNames(), want) {
		t.Fatalf("events %v, want %v", f.eventNames(), want)
	}
	workflowtest.SameJSON(t, "template.matched data", f.event(events.TemplateMatched).Data, map[string]any{"documentId": docInput.DocumentID, "matchConfidence": 0.7, "templateId": "tpl_1"})
	if got := f.extracts[0]; got.Type != "invoice" || got.TemplateID != "tpl_1" {
		t.Errorf("extract input %+v", got)
	}
	rv := f.event(events.DocumentRequiresReview)
	if got := dataKeys(rv); !reflect.DeepEqual(got, []string{"confidenceScore", "documentId", "extractionId", "flags"}) {
		t.Errorf("requires_review keys %v", got)
	}
	workflowtest.SameJSON(t, "flags", rv.Data["flags"], []string{"low_confidence:total"})
	if res.Status != docintel.StatusRequiresReview || f.records[0].TemplateID != "tpl_1" {
		t.Errorf("result %+v, record %+v", res, f.records[0])
	}
}

func TestDocumentPipelineFailures(t *testing.T) {
	unreadable := temporal.NewNonRetryableApplicationError("the PDF is truncated (no end-of-file marker)", ErrTypeDocumentUnreadable, nil)
	tests := []struct {
		name      string
		inspect   func(int) (InspectResult, error)
		text      func(int) (TextSummary, error)
		stage     string
		msg       string
		attempts  int // inspect or text calls
		wantCalls string
	}{
		{name: "corrupt file, not retried", inspect: func(int) (InspectResult, error) { return InspectResult{}, unreadable },
			stage: "inspect", msg: "the PDF is truncated (no end-of-file marker)", attempts: 1, wantCalls: "inspect"},
		{name: "tool failure, retried, then failed", text: func(int) (TextSummary, error) {
			return TextSummary{}, temporal.NewApplicationError("OCR failed", ErrTypeDocumentTool)
		}, stage: "text", msg: "OCR failed", attempts: 3, wantCalls: "text"},
		{name: "tool failure, then success", text: func(n int) (TextSummary, error) {
			if n < 3 {
				return TextSummary{}, temporal.NewApplicationError("OCR failed", ErrTypeDocumentTool)
			}
			return TextSummary{TextKey: "k", Source: docintel.SourceOCR}, nil
		}, attempts: 3, wantCalls: "text"},
		{name: "an internal error never shows its text", text: func(int) (TextSummary, error) {
			return TextSummary{}, errors.New("store: dial tcp 10.0.0.7:5432: connection refused")
		}, stage: "text", msg: "the document could not be processed", attempts: 3, wantCalls: "text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeDocuments(t)
			f.inspect, f.text = tt.inspect, tt.text
			env := newPipeline(t, f)
			env.ExecuteWorkflow(DocumentPipelineName, docInput)
			if !env.IsWorkflowCompleted() {
				t.Fatal("not completed")
			}
			n := 0
			for _, c := range f.calls {
				if c == tt.wantCalls {
					n++
				}
			}
			if n != tt.attempts {
				t.Errorf("%s ran %d times, want %d (%v)", tt.wantCalls, n, tt.attempts, f.calls)
			}
			if tt.stage == "" {
				workflowtest.Result[DocumentResult](t, env)
				return
			}
			err := env.GetWorkflowError()
			var ae *temporal.ApplicationError
			if !errors.As(err, &ae) || ae.Type() != ErrTypeDocumentFailed || ae.Message() != tt.msg {
				t.Fatalf("workflow error %v, want %s %q", err, ErrTypeDocumentFailed, tt.msg)
			}
			if want := []string{events.DocumentUploaded, events.DocumentFailed}; !reflect.DeepEqual(f.eventNames(), want) {
				t.Fatalf("events %v, want %v", f.eventNames(), want)
			}
			workflowtest.SameJSON(t, "document.failed data", f.event(events.DocumentFailed).Data,
				map[string]any{"documentId": docInput.DocumentID, "errorMessage": tt.msg, "stage": tt.stage})
			last := f.records[len(f.records)-1]
			if last.Status != docintel.StatusFailed || string(last.FailedStage) != tt.stage || last.ErrorMessage != tt.msg ||
				!last.ForgetPassword || last.CompletedAt == nil {
				t.Errorf("failure record %+v", last)
			}
		})
	}
}

// passwordRound is an inspect answer: the password (tried in round n) is wrong until right.
func passwordRounds(right int) func(int) (InspectResult, error) {
	return func(n int) (InspectResult, error) {
		if n < right {
			return InspectResult{Format: docintel.FormatPDF, Encrypted: true, PasswordRequired: true,
				Message: "the PDF needs a password to open"}, nil
		}
		return InspectResult{Format: docintel.FormatPDF, Encrypted: true, Pages: 1}, nil
	}
}

// sendPassword sends the document-password Update after delay and records its outcome.
func sendPassword(env *testsuite.TestWorkflowEnvironment, delay time.Duration, got *[]string) {
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateDocumentPassword, "", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { *got = append(*got, "rejected: "+err.Error()) },
			OnAccept: func() {},
			OnComplete: func(v any, err error) {
				if err != nil {
					*got = append(*got, "error: "+err.Error())
					return
				}
				*got = append(*got, string(v.(PasswordRetryResult).Status))
			},
		}, PasswordRetry{ActorUserID: "usr_1"})
	}, delay)
}

func TestDocumentPipelinePassword(t *testing.T) {
	f := newFakeDocuments(t)
	f.inspect = passwordRounds(2) // no password, then a wrong one, then the right one
	env := newPipeline(t, f)
	var answers []string
	sendPassword(env, time.Hour, &answers)
	sendPassword(env, 2*time.Hour, &answers)
	env.ExecuteWorkflow(DocumentPipelineName, docInput)
	res := workflowtest.Result[DocumentResult](t, env)

	if want := []string{"password_required", "processing"}; !reflect.DeepEqual(answers, want) {
		t.Fatalf("update answers %v, want %v", answers, want)
	}
	if want := []string{events.DocumentUploaded, events.DocumentPasswordRequired, events.DocumentPasswordRequired,
		events.DocumentClassified, events.DocumentExtracted}; !reflect.DeepEqual(f.eventNames(), want) {
		t.Fatalf("events %v, want %v", f.eventNames(), want)
	}
	pr := f.event(events.DocumentPasswordRequired)
	workflowtest.SameJSON(t, "password_required data", pr.Data, map[string]any{"documentId": docInput.DocumentID, "errorMessage": "the PDF needs a password to open"})
	if f.events[1].EventID == f.events[2].EventID {
		t.Error("the two password_required events share an id")
	}
	for _, rec := range f.records[:2] {
		if rec.Status != docintel.StatusPasswordRequired || !rec.ForgetPassword {
			t.Errorf("password record %+v: the wrong password must be forgotten", rec)
		}
	}
	if res.Status != docintel.StatusExtracted {
		t.Errorf("result %+v", res)
	}
}

func TestDocumentPipelinePasswordTimeout(t *testing.T) {
	f := newFakeDocuments(t)
	f.inspect = passwordRounds(10)
	env := newPipeline(t, f)
	start := env.Now()
	env.ExecuteWorkflow(DocumentPipelineName, docInput)
	err := env.GetWorkflowError()
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != ErrTypeDocumentFailed {
		t.Fatalf("workflow error %v", err)
	}
	if waited := env.Now().Sub(start); waited < docInput.PasswordTimeout {
		t.Errorf("gave up after %s, before the timeout %s", waited, docInput.PasswordTimeout)
	}
	workflowtest.SameJSON(t, "document.failed data", f.event(events.DocumentFailed).Data,
		map[string]any{"documentId": docInput.DocumentID, "errorMessage": "no password was given within 24h0m0s", "stage": "inspect"})
}

func TestDocumentPasswordUpdateRefusedWhenNotWaiting(t *testing.T) {
	f := newFakeDocuments(t)
	env := newPipeline(t, f)
	// The Update arrives while the document is being accepted: it waits for no password.
	var answers []string
	sendPassword(env, 0, &answers)
	env.ExecuteWorkflow(DocumentPipelineName, docInput)
	workflowtest.Result[DocumentResult](t, env)
	if len(answers) != 1 || !strings.HasPrefix(answers[0], "rejected: state conflict: cannot transition ") {
		t.Fatalf("update answers %v, want a state conflict", answers)
	}
	if n := strings.Count(strings.Join(f.calls, ","), "inspect"); n != 1 {
		t.Errorf("inspected %d times", n)
	}
}

func TestDocumentPipelineCancelledWhileWaiting(t *testing.T) {
	f := newFakeDocuments(t)
	f.inspect = passwordRounds(10)
	env := newPipeline(t, f)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(DocumentPipelineName, docInput)
	if !env.IsWorkflowCompleted() {
		t.Fatal("not completed")
	}
	workflowtest.SameJSON(t, "document.failed data", f.event(events.DocumentFailed).Data,
		map[string]any{"documentId": docInput.DocumentID, "errorMessage": "processing was cancelled", "stage": "inspect"})
}

func TestDocumentStartOptions(t *testing.T) {
	o := DocumentStartOptions(docInput)
	if o.ID != docInput.DocumentID || o.TaskQueue != workflows.QueueDocuments {
		t.Fatalf("options %+v", o)
	}
	attrs := o.TypedSearchAttributes
	for key, want := range map[temporal.SearchAttributeKeyKeyword]string{workflows.AttrOrgID: "org_test", workflows.AttrWorkflowSlug: "document", workflows.AttrExternalID: "upload-1"} {
		if got, ok := attrs.GetKeyword(key); !ok || got != want {
			t.Errorf("search attribute %s = %q, want %q", key.GetName(), got, want)
		}
	}
}

func TestDocumentCorrection(t *testing.T) {
	in := CorrectionInput{OrgID: "org_test", DocumentID: docInput.DocumentID, ExtractionID: "ext_01jx0000000000000000000001",
		PreviousExtractionID: "ext_01jx0000000000000000000000", ActorUserID: "usr_analyst", Fields: map[string]string{"name": "BUDI"}}
	for _, tt := range []struct {
		name       string
		answer     error
		wantErr    string
		wantStatus int
		calls      int
	}{
		{"recorded", nil, "", 0, 1},
		{"the document moved on", workflows.StateConflictError("extracted", "extracted"), "state conflict: cannot transition extracted → extracted", 409, 1},
		// The workflow itself refuses to retry these types, even when the error is not marked non-retryable.
		{"a conflict is not retried", temporal.NewApplicationError("state conflict: cannot transition extracted → extracted", workflows.ErrTypeStateConflict),
			"state conflict: cannot transition extracted → extracted", 409, 1},
		{"an unknown field is not retried", temporal.NewApplicationError("nope is not a field of this npwp document", workflows.ErrTypeInvalidArgument),
			"nope is not a field of this npwp document", 400, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := workflowtest.NewEnv()
			env.RegisterWorkflowWithOptions(DocumentCorrection, workflow.RegisterOptions{Name: DocumentCorrectionName})
			var got []CorrectionRecord
			env.RegisterActivityWithOptions(func(_ context.Context, rec CorrectionRecord) error {
				got = append(got, rec)
				if _, err := events.NewEnvelope(rec.Event.EventID, rec.Event.Event, rec.Event.OrgID, rec.Event.OccurredAt, rec.Event.Data); err != nil {
					t.Errorf("event off the catalog: %v", err)
				}
				if len(got) > 3 {
					return nil // retried: end the run so that the count below fails
				}
				return tt.answer
			}, activity.RegisterOptions{Name: ActivityCorrectDocument})
			env.ExecuteWorkflow(DocumentCorrectionName, in)
			err := env.GetWorkflowError()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if len(got) != tt.calls {
				t.Fatalf("%d activity calls, want %d", len(got), tt.calls)
			}
			if st, msg, ok := CorrectionErrorStatus(err); tt.wantErr != "" && (!ok || st != tt.wantStatus || msg != tt.wantErr) {
				t.Errorf("CorrectionErrorStatus = %d %q %v", st, msg, ok)
			}
			workflowtest.SameJSON(t, "extraction.corrected data", got[0].Event.Data, map[string]any{"actorUserId": "usr_analyst",
				"documentId": in.DocumentID, "extractionId": in.ExtractionID, "previousExtractionId": in.PreviousExtractionID})
		})
	}
}
