package documents

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	hookacts "github.com/svcplatform/svc/activities/webhooks"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/internal/blobs"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/documents/fixtures"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/workflows"
	docwf "github.com/svcplatform/svc/workflows/documents"
)

// docEnv is the document activities on a real database, blob store, engine (qpdf, poppler,
// tesseract) and publisher; only Temporal's starts of delivery workflows are recorded.
type docEnv struct {
	t     *testing.T
	ctx   context.Context
	store *store.Store
	blobs *blobs.Local
	box   *secrets.Box
	org   string
	acts  *Activities
}

func newDocEnv(t *testing.T, s *store.Store) *docEnv {
	t.Helper()
	ctx := context.Background()
	org, err := s.Orgs.Create(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	box, err := secrets.NewBox(bytes.Repeat([]byte{9}, secrets.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Webhooks.Create(ctx, box, org.ID, "https://hooks.example.com/in", []string{events.All}, true); err != nil {
		t.Fatal(err)
	}
	bl, err := blobs.NewLocal(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	acts := &Activities{Store: s, Blobs: bl, Engine: docintel.NewEngine(docintel.Config{}), Box: box,
		Publisher: &hookacts.Activities{Store: s, Temporal: &startRecorder{}}, Threshold: 0.8, MaxFileBytes: 20 << 20,
		Logger: slog.New(slog.DiscardHandler)}
	return &docEnv{t: t, ctx: ctx, store: s, blobs: bl, box: box, org: org.ID, acts: acts}
}

// upload stores a file as the API does, with its password sealed when one is given.
func (e *docEnv) upload(data []byte, password string) docwf.DocumentRef {
	e.t.Helper()
	b, err := blobs.Put(e.ctx, e.blobs, bytes.NewReader(data), 20<<20)
	if err != nil {
		e.t.Fatal(err)
	}
	d := &store.Document{ID: ids.New(ids.Document), OrgID: e.org, Filename: "f", Format: string(docintel.Sniff(data)),
		Size: b.Size, SHA256: b.SHA256, BlobKey: b.Key}
	if password != "" {
		e.seal(d, password)
	}
	if err := e.store.Documents.Create(e.ctx, d); err != nil {
		e.t.Fatal(err)
	}
	return docwf.DocumentRef{OrgID: e.org, DocumentID: d.ID}
}

func (e *docEnv) seal(d *store.Document, password string) {
	e.t.Helper()
	sealed, err := e.box.Seal([]byte(password), store.DocumentPasswordContext(d.ID))
	if err != nil {
		e.t.Fatal(err)
	}
	d.PasswordSealed = sealed
}

func (e *docEnv) doc(ref docwf.DocumentRef) *store.Document {
	e.t.Helper()
	d, err := e.store.Documents.Get(e.ctx, ref.OrgID, ref.DocumentID)
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

// events lists the names of the events published for the organisation, sorted.
func (e *docEnv) events() []string {
	e.t.Helper()
	var rows []store.Event
	if err := e.store.DB.Where("org_id = ?", e.org).Order("occurred_at, id").Find(&rows).Error; err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.Name)
	}
	sort.Strings(out)
	return out
}

func (e *docEnv) event(name, key string, data map[string]any) workflows.PublishEventInput {
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	return workflows.PublishEventInput{EventID: events.DeriveID(at, key, name), Event: name, OrgID: e.org, OccurredAt: at, Data: data}
}

// wantAppError checks that err is a Temporal application error of errType with msg.
func wantAppError(t *testing.T, err error, errType, msg string, nonRetryable bool) {
	t.Helper()
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != errType || ae.Message() != msg || ae.NonRetryable() != nonRetryable {
		t.Fatalf("error %v, want %s %q (non-retryable %v)", err, errType, msg, nonRetryable)
	}
}

// TestDocumentStagesOnATextPDF runs every activity of the pipeline on the text NPWP card,
// the bookkeeping ones twice (as Temporal may): right fields, one extraction, one event each.
func TestDocumentStagesOnATextPDF(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e := newDocEnv(t, s)
		a := e.acts
		ref := e.upload(fixtures.NPWPTextPDF(t), "")
		for i := 0; i < 2; i++ {
			if err := a.AcceptDocument(e.ctx, docwf.AcceptDocumentInput{Ref: ref, Event: e.event(events.DocumentUploaded, ref.DocumentID,
				map[string]any{"documentId": ref.DocumentID, "type": nil, "filename": "f", "sha256": "x", "externalRef": nil})}); err != nil {
				t.Fatal(err)
			}
		}
		if d := e.doc(ref); d.Status != "processing" {
			t.Fatalf("after accept: %s", d.Status)
		}
		in, err := a.InspectDocument(e.ctx, ref)
		if err != nil || in.Format != docintel.FormatPDF || in.PasswordRequired || in.Pages != 1 {
			t.Fatalf("inspect = %+v, %v", in, err)
		}
		text, err := a.ReadDocumentText(e.ctx, ref)
		if err != nil || text.Source != docintel.SourceTextLayer || text.Lines == 0 || text.TextKey == "" {
			t.Fatalf("text = %+v, %v", text, err)
		}
		if d := e.doc(ref); d.TextKey != text.TextKey {
			t.Fatalf("text key %q not noted on the document (%q)", text.TextKey, d.TextKey)
		}
		cls, err := a.ClassifyDocument(e.ctx, ref)
		if err != nil || cls.Type != docintel.TypeNPWP || cls.Confidence < 0.5 {
			t.Fatalf("classify = %+v, %v", cls, err)
		}
		x, err := a.ExtractDocument(e.ctx, docwf.ExtractInput{Ref: ref, Type: cls.Type})
		if err != nil {
			t.Fatal(err)
		}
		dec, err := a.DecideDocument(e.ctx, docwf.DecideInput{Ref: ref, Extraction: &x})
		if err != nil || dec.Status != docintel.StatusExtracted {
			t.Fatalf("decide = %+v, %v", dec, err)
		}
		if got, want := dec.Values(), fixtures.DefaultNPWP().ExpectedFields(); !reflect.DeepEqual(got, want) {
			t.Fatalf("fields %v, want %v", got, want)
		}
		extID := ids.New(ids.Extraction)
		fin := docwf.FinishDocumentInput{Ref: ref, ExtractionID: extID, Extraction: &x, Decision: &dec, CompletedAt: time.Now(),
			Event: e.event(events.DocumentExtracted, ref.DocumentID, map[string]any{"documentId": ref.DocumentID, "extractionId": extID,
				"type": x.Type, "confidenceScore": dec.ConfidenceScore, "fields": dec.Values()})}
		for i := 0; i < 2; i++ {
			if err := a.FinishDocument(e.ctx, fin); err != nil {
				t.Fatal(err)
			}
		}
		d := e.doc(ref)
		if d.Status != "extracted" || d.LatestExtractionID != extID || *d.ConfidenceScore != dec.ConfidenceScore || d.Type != "npwp" {
			t.Fatalf("document after finish: %+v", d)
		}
		stored, err := s.Documents.GetExtraction(e.ctx, e.org, extID)
		if err != nil || stored.Fields["npwp_number"].Value != "09.254.294.3-407.000" || !stored.Fields["name"].Found || stored.Source != "text_layer" {
			t.Fatalf("stored extraction %+v, %v", stored, err)
		}
		if got := e.events(); !reflect.DeepEqual(got, []string{events.DocumentExtracted, events.DocumentUploaded}) {
			t.Fatalf("events %v", got)
		}

		// The organisation's own threshold decides: above every field's confidence → review.
		if err := s.Documents.SetThreshold(e.ctx, e.org, ptrTo(1.0)); err != nil {
			t.Fatal(err)
		}
		if dec, err := a.DecideDocument(e.ctx, docwf.DecideInput{Ref: ref, Extraction: &x}); err != nil || dec.Status != docintel.StatusRequiresReview {
			t.Fatalf("decide at threshold 1 = %+v, %v", dec.Status, err)
		}

		// An analyst corrects the name; an unknown field and a stale correction are refused.
		corr := docwf.CorrectionInput{OrgID: e.org, DocumentID: ref.DocumentID, ExtractionID: ids.New(ids.Extraction),
			PreviousExtractionID: extID, ActorUserID: "usr_analyst", Fields: map[string]string{"name": "BUDI SANTOSO SH"}, CorrectedAt: time.Now()}
		ev := e.event(events.ExtractionCorrected, corr.ExtractionID, map[string]any{"documentId": ref.DocumentID,
			"extractionId": corr.ExtractionID, "actorUserId": "usr_analyst", "previousExtractionId": extID})
		bad := corr
		bad.Fields = map[string]string{"shoe_size": "44"}
		wantAppError(t, a.CorrectDocument(e.ctx, docwf.CorrectionRecord{Correction: bad, Event: ev}), workflows.ErrTypeInvalidArgument,
			"shoe_size is not a field of this npwp document", true)
		for i := 0; i < 2; i++ {
			if err := a.CorrectDocument(e.ctx, docwf.CorrectionRecord{Correction: corr, Event: ev}); err != nil {
				t.Fatal(err)
			}
		}
		cx, err := s.Documents.GetExtraction(e.ctx, e.org, corr.ExtractionID)
		if err != nil || cx.PreviousExtractionID != extID || cx.ActorUserID != "usr_analyst" || cx.Source != "correction" ||
			cx.Fields["name"] != (store.ExtractedField{Value: "BUDI SANTOSO SH", Confidence: 1, Required: true, Found: true, Corrected: true}) ||
			cx.Fields["npwp_number"].Value != "09.254.294.3-407.000" || cx.Fields["npwp_number"].Corrected {
			t.Fatalf("correction %+v, %v", cx, err)
		}
		stale := corr
		stale.ExtractionID = ids.New(ids.Extraction)
		wantAppError(t, a.CorrectDocument(e.ctx, docwf.CorrectionRecord{Correction: stale, Event: ev}), workflows.ErrTypeStateConflict,
			"state conflict: cannot transition extracted → extracted", true)
		if got := e.events(); !reflect.DeepEqual(got, []string{events.DocumentExtracted, events.DocumentUploaded, events.ExtractionCorrected}) {
			t.Fatalf("events %v", got)
		}
	})
}

func ptrTo[T any](v T) *T { return &v }

// TestInspectPasswords: an encrypted PDF without a password, with a wrong one and with the
// right one; a PDF with only an owner password opens without one.
func TestInspectPasswords(t *testing.T) {
	s := storetest.Open(t, storetest.Backends(t)[0])
	e := newDocEnv(t, s)
	encrypted := fixtures.NPWPEncryptedPDF(t)
	tests := []struct {
		name     string
		data     []byte
		password string
		want     docwf.InspectResult
	}{
		{"no password", encrypted, "", docwf.InspectResult{Format: "pdf", Encrypted: true, PasswordRequired: true,
			Message: "the PDF is encrypted: a password is needed to open it"}},
		{"wrong password", encrypted, "guess", docwf.InspectResult{Format: "pdf", Encrypted: true, PasswordRequired: true,
			Message: "the password does not open the PDF"}},
		{"right password", encrypted, fixtures.UserPassword, docwf.InspectResult{Format: "pdf", Encrypted: true, Pages: 1}},
		{"owner password only", fixtures.NPWPOwnerOnlyPDF(t), "", docwf.InspectResult{Format: "pdf", Encrypted: true, Pages: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := e.upload(tt.data, tt.password)
			got, err := e.acts.InspectDocument(e.ctx, ref)
			if err != nil || got != tt.want {
				t.Fatalf("inspect = %+v, %v; want %+v", got, err, tt.want)
			}
			if tt.want.PasswordRequired {
				return
			}
			text, err := e.acts.ReadDocumentText(e.ctx, ref)
			if err != nil || text.Source != docintel.SourceTextLayer {
				t.Fatalf("text = %+v, %v", text, err)
			}
		})
	}
}

// TestStageErrors: what retrying cannot fix is not retried and says why; the text of an
// internal error never becomes the message.
func TestStageErrors(t *testing.T) {
	s := storetest.Open(t, storetest.Backends(t)[0])
	e := newDocEnv(t, s)
	_, err := e.acts.InspectDocument(e.ctx, e.upload(fixtures.TruncatedPDF(t), ""))
	wantAppError(t, err, docwf.ErrTypeDocumentUnreadable, "the PDF is truncated (no end-of-file marker)", true)
	_, err = e.acts.InspectDocument(e.ctx, e.upload(fixtures.NotADocument(t), ""))
	wantAppError(t, err, docwf.ErrTypeDocumentUnreadable, "the file is not a PDF, PNG, JPEG or TIFF", true)

	// A file that vanished from the blob store, and a document that does not exist.
	ref := e.upload([]byte("%PDF-1.4 vanished %%EOF"), "")
	if err := s.DB.Model(&store.Document{}).Where("id = ?", ref.DocumentID).Update("blob_key", blobs.KeyFor(string(bytes.Repeat([]byte("0"), 64)))).Error; err != nil {
		t.Fatal(err)
	}
	_, err = e.acts.InspectDocument(e.ctx, ref)
	wantAppError(t, err, docwf.ErrTypeDocumentUnreadable, "the stored file is missing", true)
	_, err = e.acts.InspectDocument(e.ctx, docwf.DocumentRef{OrgID: e.org, DocumentID: ids.New(ids.Document)})
	wantAppError(t, err, docwf.ErrTypeDocumentUnreadable, "the document no longer exists", true)
	// Extraction before the text stage, and of a type nobody knows.
	_, err = e.acts.ClassifyDocument(e.ctx, e.upload(fixtures.NPWPTextPDF(t), ""))
	wantAppError(t, err, docwf.ErrTypeDocumentUnreadable, "the document has no text yet", true)
	ref = e.upload(fixtures.KTPTextPDF(t), "")
	if _, err := e.acts.ReadDocumentText(e.ctx, ref); err != nil {
		t.Fatal(err)
	}
	_, err = e.acts.ExtractDocument(e.ctx, docwf.ExtractInput{Ref: ref, Type: "invoice"})
	wantAppError(t, err, docwf.ErrTypeDocumentUnreadable, `unknown document type "invoice"`, true)
}

// TestExtractWithATemplate: a template of the organisation, named by the hint's type or
// by classification, is what extraction uses.
func TestExtractWithATemplate(t *testing.T) {
	s := storetest.Open(t, storetest.Backends(t)[0])
	e := newDocEnv(t, s)
	tpl := &store.Template{ID: ids.New(ids.Template), OrgID: e.org, Type: "tax_card", MustInclude: []string{"NPWP"},
		Fields: []docintel.TemplateField{{Name: "tax_number", Regex: `\d{2}\.\d{3}\.\d{3}\.\d-\d{3}\.\d{3}`, Required: true}}}
	if err := s.Documents.CreateTemplate(e.ctx, tpl); err != nil {
		t.Fatal(err)
	}
	ref := e.upload(fixtures.NPWPTextPDF(t), "")
	if _, err := e.acts.ReadDocumentText(e.ctx, ref); err != nil {
		t.Fatal(err)
	}
	for _, in := range []docwf.ExtractInput{{Ref: ref, Type: "tax_card"}, {Ref: ref, Type: "tax_card", TemplateID: tpl.ID}} {
		x, err := e.acts.ExtractDocument(e.ctx, in)
		if err != nil || x.TemplateID != tpl.ID || x.Fields["tax_number"].Value != "09.254.294.3-407.000" {
			t.Fatalf("extract %+v = %+v, %v", in, x, err)
		}
	}
}

// TestTextIsKeptOutOfHistory: the text stage's result is a summary; the text itself is in
// the blob store and decodes to what the engine read.
func TestTextIsKeptOutOfHistory(t *testing.T) {
	s := storetest.Open(t, storetest.Backends(t)[0])
	e := newDocEnv(t, s)
	ref := e.upload(fixtures.PassportTextPDF(t), "")
	sum, err := e.acts.ReadDocumentText(e.ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := e.blobs.Open(e.ctx, sum.TextKey)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Contains(raw, []byte(`"lines"`)) || sum.Lines == 0 {
		t.Fatalf("stored text %q, summary %+v", raw, sum)
	}
}

// startRecorder records the WebhookDelivery starts that publishing asks for.
type startRecorder struct {
	mu  sync.Mutex
	ids []string
}

func (s *startRecorder) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, _ any, _ ...any) (client.WorkflowRun, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = append(s.ids, o.ID)
	return nil, nil
}
