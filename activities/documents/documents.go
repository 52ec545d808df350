// Package documents holds the documents product's activities: the pipeline's stages and
// bookkeeping. Activities are idempotent, because Temporal may run one twice.
package documents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/internal/blobs"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	docwf "github.com/svcplatform/svc/workflows/documents"
)

// MaxTextBytes caps the stored text of one document that a stage reads back (a five-page
// document's words with their confidences are far below it).
const MaxTextBytes = 64 << 20

// Activities implements the activities of the DocumentPipeline and DocumentCorrection
// workflows. Stage activities read the file, its password and its text from the stores by
// the document's id; bookkeeping activities write the store and publish the events they
// carry, as the orchestration activities do. Every one can run twice: writes are
// conditional or keyed by ids the workflow derived, and events keep the workflow's ids.
type Activities struct {
	// Store holds documents, extractions, templates and settings.
	Store *store.Store
	// Blobs holds the uploaded files and the text read from them.
	Blobs blobs.Store
	// Engine runs the stages that need external programs.
	Engine *docintel.Engine
	// Box opens the passwords the API stored sealed (config secrets.key).
	Box *secrets.Box
	// Publisher publishes the events the bookkeeping activities carry.
	Publisher activities.Publisher
	// Threshold is config documents.threshold, used when the organisation has none of its own.
	Threshold float64
	// MaxFileBytes caps the file a stage reads (config documents.max_upload_bytes).
	MaxFileBytes int64
	// Logger receives the causes of stage failures; never a password or a document's text.
	Logger *slog.Logger
}

// AcceptDocument moves a stored document from uploaded to processing and publishes
// document.uploaded.
func (d *Activities) AcceptDocument(ctx context.Context, in docwf.AcceptDocumentInput) error {
	err := d.Store.Documents.Update(ctx, in.Ref.OrgID, in.Ref.DocumentID, store.DocumentUpdate{Status: docintel.StatusProcessing})
	if err != nil {
		return fmt.Errorf("accept %s: %w", in.Ref.DocumentID, err)
	}
	return d.publish(ctx, in.Event)
}

// InspectDocument checks that the file opens. A PDF that needs a user password it does not
// have (or has wrong) is a result, not an error: the workflow waits for another password.
func (d *Activities) InspectDocument(ctx context.Context, ref docwf.DocumentRef) (docwf.InspectResult, error) {
	doc, data, pw, err := d.load(ctx, ref)
	if err != nil {
		return docwf.InspectResult{}, err
	}
	in, err := d.Engine.Inspect(ctx, data, pw)
	if errors.Is(err, docintel.ErrPasswordRequired) {
		msg := "the PDF is encrypted: a password is needed to open it"
		if pw != "" {
			msg = "the password does not open the PDF"
		}
		return docwf.InspectResult{Format: docintel.FormatPDF, Encrypted: true, PasswordRequired: true, Message: msg}, nil
	}
	if err != nil {
		return docwf.InspectResult{}, d.stageError(ctx, doc, err)
	}
	return docwf.InspectResult{Format: in.Format, Pages: in.Pages, Encrypted: in.Encrypted}, nil
}

// ReadDocumentText reads the text (the PDF's text layer, or OCR), stores it in the blob
// store, notes its key on the document and returns its summary. It heartbeats while OCR
// runs.
func (d *Activities) ReadDocumentText(ctx context.Context, ref docwf.DocumentRef) (docwf.TextSummary, error) {
	stop := activities.Heartbeat(ctx, 10*time.Second)
	defer stop()
	doc, data, pw, err := d.load(ctx, ref)
	if err != nil {
		return docwf.TextSummary{}, err
	}
	text, err := d.Engine.Text(ctx, data, pw)
	if err != nil {
		return docwf.TextSummary{}, d.stageError(ctx, doc, err)
	}
	raw, err := json.Marshal(text)
	if err != nil {
		return docwf.TextSummary{}, fmt.Errorf("text of %s: %w", doc.ID, err)
	}
	b, err := blobs.Put(ctx, d.Blobs, bytes.NewReader(raw), MaxTextBytes)
	if err != nil {
		return docwf.TextSummary{}, fmt.Errorf("store the text of %s: %w", doc.ID, err)
	}
	if err := d.Store.Documents.Update(ctx, doc.OrgID, doc.ID, store.DocumentUpdate{TextKey: b.Key}); err != nil {
		return docwf.TextSummary{}, fmt.Errorf("text of %s: %w", doc.ID, err)
	}
	return docwf.TextSummary{TextKey: b.Key, Source: text.Source, Pages: text.Pages, OCRPages: text.OCRPages,
		Rotation: text.Rotation, Lines: len(text.Lines), MeanConfidence: text.MeanConfidence}, nil
}

// ClassifyDocument scores the document's text against the built-in types and the
// organisation's templates.
func (d *Activities) ClassifyDocument(ctx context.Context, ref docwf.DocumentRef) (docintel.Classification, error) {
	_, text, templates, err := d.loadText(ctx, ref)
	if err != nil {
		return docintel.Classification{}, err
	}
	return docintel.Classify(text, templates), nil
}

// ExtractDocument reads the fields of the document's type (or template) from its text.
// Dates are judged against the upload time, so a retry extracts the same.
func (d *Activities) ExtractDocument(ctx context.Context, in docwf.ExtractInput) (docintel.Extraction, error) {
	doc, text, templates, err := d.loadText(ctx, in.Ref)
	if err != nil {
		return docintel.Extraction{}, err
	}
	tmpl := docintel.TemplateByID(in.TemplateID, templates)
	if tmpl == nil {
		tmpl = docintel.TemplateFor(in.Type, templates)
	}
	x, err := docintel.Extract(text, in.Type, tmpl, docintel.ExtractOptions{Now: doc.CreatedAt})
	if err != nil {
		return docintel.Extraction{}, d.stageError(ctx, doc, err)
	}
	return *x, nil
}

// DecideDocument computes the fields' and the document's confidence and decides between
// extracted and requires_review at the organisation's threshold (config documents.threshold
// unless it has its own).
func (d *Activities) DecideDocument(ctx context.Context, in docwf.DecideInput) (docintel.Decision, error) {
	if in.Extraction == nil {
		return docintel.Decision{}, temporal.NewNonRetryableApplicationError("no extraction to decide on", docwf.ErrTypeDocumentUnreadable, nil)
	}
	threshold, err := d.Store.Documents.Threshold(ctx, in.Ref.OrgID, d.Threshold)
	if err != nil {
		return docintel.Decision{}, fmt.Errorf("threshold of %s: %w", in.Ref.OrgID, err)
	}
	return *docintel.Decide(in.Extraction, threshold), nil
}

// RecordDocument applies a pipeline write to the document and publishes its events.
func (d *Activities) RecordDocument(ctx context.Context, rec docwf.DocumentRecord) error {
	u := store.DocumentUpdate{Status: rec.Status, Type: rec.Type, ClassificationConfidence: rec.ClassificationConfidence,
		TemplateID: rec.TemplateID, FailedStage: string(rec.FailedStage), ErrorMessage: rec.ErrorMessage,
		ForgetPassword: rec.ForgetPassword, CompletedAt: rec.CompletedAt}
	if err := d.Store.Documents.Update(ctx, rec.Ref.OrgID, rec.Ref.DocumentID, u); err != nil {
		return fmt.Errorf("record %s: %w", rec.Ref.DocumentID, err)
	}
	for _, ev := range rec.Events {
		if err := d.publish(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// FinishDocument stores the pipeline's extraction, moves the document to the decided status
// (forgetting its password) and publishes document.extracted or document.requires_review.
func (d *Activities) FinishDocument(ctx context.Context, in docwf.FinishDocumentInput) error {
	if in.Extraction == nil || in.Decision == nil {
		return temporal.NewNonRetryableApplicationError("no extraction to store", docwf.ErrTypeDocumentUnreadable, nil)
	}
	x := &store.Extraction{
		ID: in.ExtractionID, OrgID: in.Ref.OrgID, DocumentID: in.Ref.DocumentID, Type: in.Extraction.Type,
		TemplateID: in.Extraction.TemplateID, Source: string(in.Extraction.Source), Status: string(in.Decision.Status),
		ConfidenceScore: in.Decision.ConfidenceScore, Fields: extractedFields(in.Decision.Fields), Flags: nonNil(in.Decision.Flags),
		CreatedAt: in.CompletedAt.UTC(),
	}
	if err := d.Store.Documents.Finish(ctx, x, in.CompletedAt); err != nil {
		return fmt.Errorf("finish %s: %w", in.Ref.DocumentID, err)
	}
	return d.publish(ctx, in.Event)
}

// CorrectDocument stores an analyst's correction as a new extraction: the previous
// extraction's fields with the corrected values (confidence 1, marked corrected), status
// extracted; then publishes extraction.corrected. A field the previous extraction does not
// have is refused (InvalidArgument), and so is a document that has moved on (StateConflict).
func (d *Activities) CorrectDocument(ctx context.Context, rec docwf.CorrectionRecord) error {
	c := rec.Correction
	prev, err := d.Store.Documents.GetExtraction(ctx, c.OrgID, c.PreviousExtractionID)
	if errors.Is(err, store.ErrNotFound) || err == nil && prev.DocumentID != c.DocumentID {
		return docwf.DocumentStateConflict("unknown", string(docintel.StatusExtracted))
	}
	if err != nil {
		return err
	}
	fields := make(map[string]store.ExtractedField, len(prev.Fields))
	for name, f := range prev.Fields {
		fields[name] = f
	}
	for name, v := range c.Fields {
		f, ok := fields[name]
		if !ok {
			return temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s is not a field of this %s document", name, prev.Type),
				workflows.ErrTypeInvalidArgument, nil)
		}
		fields[name] = store.ExtractedField{Value: v, Confidence: 1, Required: f.Required, Found: v != "", Corrected: true}
	}
	x := &store.Extraction{
		ID: c.ExtractionID, OrgID: c.OrgID, DocumentID: c.DocumentID, Type: prev.Type, TemplateID: prev.TemplateID,
		Source: store.SourceCorrection, Status: string(docintel.StatusExtracted), ConfidenceScore: 1, Fields: fields,
		Flags: []string{}, PreviousExtractionID: c.PreviousExtractionID, ActorUserID: c.ActorUserID, CreatedAt: c.CorrectedAt.UTC(),
	}
	var se *store.StateError
	switch err := d.Store.Documents.Correct(ctx, x); {
	case errors.As(err, &se):
		return docwf.DocumentStateConflict(se.Status, string(docintel.StatusExtracted))
	case errors.Is(err, store.ErrNotFound):
		return docwf.DocumentStateConflict("unknown", string(docintel.StatusExtracted))
	case err != nil:
		return fmt.Errorf("correct %s: %w", c.DocumentID, err)
	}
	return d.publish(ctx, rec.Event)
}

// extractedFields keeps what the API shows of each decided field.
func extractedFields(in map[string]docintel.Field) map[string]store.ExtractedField {
	out := make(map[string]store.ExtractedField, len(in))
	for name, f := range in {
		found := f.Label != docintel.LabelMissing
		out[name] = store.ExtractedField{Value: f.Value, Confidence: f.Confidence, Required: f.Required, Found: found,
			Valid: f.Valid, Problem: f.Problem}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// load reads the document, its file and its password (opened from its sealed form).
func (d *Activities) load(ctx context.Context, ref docwf.DocumentRef) (*store.Document, []byte, docintel.Password, error) {
	doc, err := d.document(ctx, ref)
	if err != nil {
		return nil, nil, "", err
	}
	data, err := blobs.ReadAll(ctx, d.Blobs, doc.BlobKey, d.maxFile())
	if errors.Is(err, blobs.ErrNotFound) {
		return nil, nil, "", temporal.NewNonRetryableApplicationError("the stored file is missing", docwf.ErrTypeDocumentUnreadable, nil)
	}
	if errors.Is(err, blobs.ErrTooLarge) {
		return nil, nil, "", temporal.NewNonRetryableApplicationError("the file is larger than the upload limit", docwf.ErrTypeDocumentUnreadable, nil)
	}
	if err != nil {
		return nil, nil, "", err
	}
	var pw docintel.Password
	if doc.PasswordSealed != "" {
		if d.Box == nil {
			return nil, nil, "", errors.New("documents: no secrets box to open the password (config secrets.key)")
		}
		plain, err := d.Box.Open(doc.PasswordSealed, store.DocumentPasswordContext(doc.ID))
		if err != nil {
			// Sealed with another key (secrets.key changed): as good as no password.
			d.logger().Warn("document password does not open", "documentId", doc.ID, "error", err)
		} else {
			pw = docintel.Password(plain)
		}
	}
	return doc, data, pw, nil
}

// loadText reads the document, the text the text stage stored and the organisation's templates.
func (d *Activities) loadText(ctx context.Context, ref docwf.DocumentRef) (*store.Document, *docintel.TextResult, []docintel.Template, error) {
	doc, err := d.document(ctx, ref)
	if err != nil {
		return nil, nil, nil, err
	}
	if doc.TextKey == "" {
		return nil, nil, nil, temporal.NewNonRetryableApplicationError("the document has no text yet", docwf.ErrTypeDocumentUnreadable, nil)
	}
	raw, err := blobs.ReadAll(ctx, d.Blobs, doc.TextKey, MaxTextBytes)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("text of %s: %w", doc.ID, err)
	}
	var text docintel.TextResult
	if err := json.Unmarshal(raw, &text); err != nil {
		return nil, nil, nil, fmt.Errorf("text of %s: %w", doc.ID, err)
	}
	templates, err := d.Store.Documents.Templates(ctx, doc.OrgID)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("templates of %s: %w", doc.OrgID, err)
	}
	return doc, &text, templates, nil
}

func (d *Activities) document(ctx context.Context, ref docwf.DocumentRef) (*store.Document, error) {
	doc, err := d.Store.Documents.Get(ctx, ref.OrgID, ref.DocumentID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, temporal.NewNonRetryableApplicationError("the document no longer exists", docwf.ErrTypeDocumentUnreadable, nil)
	}
	return doc, err
}

// stageError turns an engine error into the activity's error: not retried when retrying
// cannot help, retried for tool failures; the message is docintel.Message (safe to show),
// the cause goes to the log.
func (d *Activities) stageError(ctx context.Context, doc *store.Document, err error) error {
	d.logger().Warn("document stage failed", "documentId", doc.ID, "orgId", doc.OrgID, "stage", docintel.StageOf(err), "error", err)
	switch {
	case docintel.IsPermanent(err):
		return temporal.NewNonRetryableApplicationError(docintel.Message(err), docwf.ErrTypeDocumentUnreadable, nil)
	case errors.Is(err, docintel.ErrTool):
		return temporal.NewApplicationError(docintel.Message(err), docwf.ErrTypeDocumentTool)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return err
}

func (d *Activities) publish(ctx context.Context, ev workflows.PublishEventInput) error {
	return activities.Publish(ctx, d.Publisher, "document", ev)
}

func (d *Activities) maxFile() int64 {
	if d.MaxFileBytes > 0 {
		return d.MaxFileBytes
	}
	return 20 << 20
}

func (d *Activities) logger() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.Default()
}
