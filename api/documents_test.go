package api_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	docacts "github.com/svcplatform/svc/activities/documents"
	hookacts "github.com/svcplatform/svc/activities/webhooks"
	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/blobs"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/documents/fixtures"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	docwf "github.com/svcplatform/svc/workflows/documents"
)

// documentTemporal stands in for the Temporal service, which e2e/documents_test.go runs for
// real: it records pipeline starts, answers the document-password Update from a script, and
// runs a correction's one activity (the real docacts.Activities.CorrectDocument) inline.
type documentTemporal struct {
	client.Client
	mu       sync.Mutex
	starts   []client.StartWorkflowOptions
	inputs   []docwf.DocumentInput
	updates  []client.UpdateWorkflowOptions
	fail     error
	password func(docID string) (docwf.PasswordRetryResult, error)
	correct  func(context.Context, docwf.CorrectionRecord) error
}

func (d *documentTemporal) ExecuteWorkflow(ctx context.Context, o client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fail != nil {
		return nil, d.fail
	}
	switch wf {
	case docwf.DocumentPipelineName:
		d.starts = append(d.starts, o)
		d.inputs = append(d.inputs, args[0].(docwf.DocumentInput))
		return fakeRun{}, nil
	case docwf.DocumentCorrectionName:
		in := args[0].(docwf.CorrectionInput)
		return fakeRun{err: d.correct(ctx, docwf.CorrectionRecord{Correction: in, Event: workflows.PublishEventInput{
			EventID: ids.New(ids.Event), Event: "extraction.corrected", OrgID: in.OrgID, OccurredAt: time.Now(),
			Data: map[string]any{"documentId": in.DocumentID, "extractionId": in.ExtractionID, "actorUserId": in.ActorUserID,
				"previousExtractionId": in.PreviousExtractionID}}})}, nil
	}
	return nil, fmt.Errorf("unexpected start of %v", wf)
}

func (d *documentTemporal) UpdateWorkflow(_ context.Context, o client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	d.mu.Lock()
	d.updates = append(d.updates, o)
	d.mu.Unlock()
	res, err := d.password(o.WorkflowID)
	return fakeUpdate{res: res, err: err}, nil
}

func (d *documentTemporal) started() ([]client.StartWorkflowOptions, []docwf.DocumentInput) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]client.StartWorkflowOptions(nil), d.starts...), append([]docwf.DocumentInput(nil), d.inputs...)
}

type fakeRun struct{ err error }

func (fakeRun) GetID() string                    { return "" }
func (fakeRun) GetRunID() string                 { return "" }
func (r fakeRun) Get(context.Context, any) error { return r.err }
func (r fakeRun) GetWithOptions(context.Context, any, client.WorkflowRunGetOptions) error {
	return r.err
}

type fakeUpdate struct {
	res docwf.PasswordRetryResult
	err error
}

func (fakeUpdate) WorkflowID() string { return "" }
func (fakeUpdate) RunID() string      { return "" }
func (fakeUpdate) UpdateID() string   { return "" }
func (u fakeUpdate) Get(_ context.Context, v any) error {
	if u.err != nil {
		return u.err
	}
	if p, ok := v.(*docwf.PasswordRetryResult); ok {
		*p = u.res
	}
	return nil
}

// documentHarness is an API with a secrets key, a small upload cap and documentTemporal.
type documentHarness struct {
	*apitest.Harness
	temporal *documentTemporal
	box      *secrets.Box
}

const testUploadCap = 600 << 10

func newDocumentHarness(t testing.TB) *documentHarness {
	t.Helper()
	key, err := secrets.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	dt := &documentTemporal{}
	h := apitest.New(t, apitest.Options{Temporal: dt, Config: func(c *config.Config) {
		c.Secrets.Key = key
		c.Documents.MaxUploadBytes = testUploadCap
	}})
	h.NoRateLimits(h.Org.ID)
	box, err := secrets.NewBoxBase64(key)
	if err != nil {
		t.Fatal(err)
	}
	docs := &docacts.Activities{Store: h.Store, Box: box, Publisher: &hookacts.Activities{Store: h.Store, Temporal: dt},
		Logger: slog.New(slog.DiscardHandler)}
	dt.correct = docs.CorrectDocument
	dt.password = func(string) (docwf.PasswordRetryResult, error) {
		return docwf.PasswordRetryResult{Status: docintel.StatusProcessing}, nil
	}
	return &documentHarness{Harness: h, temporal: dt, box: box}
}

// part is one part of a multipart body.
type part struct {
	name, filename string
	data           []byte
}

func filePart(data []byte) part { return part{name: "file", filename: "card.pdf", data: data} }

func field(name, value string) part { return part{name: name, data: []byte(value)} }

// multipartBody encodes parts in order.
func multipartBody(t testing.TB, parts ...part) ([]byte, string) {
	t.Helper()
	return multipartBodyWith(t, "", parts...)
}

// multipartBodyWith encodes parts in order with boundary ("" a random one), as a fuzz target's
// seeds need one boundary for the Content-Type every input is sent with.
func multipartBodyWith(t testing.TB, boundary string, parts ...part) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if boundary != "" {
		if err := w.SetBoundary(boundary); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range parts {
		hdr := textproto.MIMEHeader{}
		cd := fmt.Sprintf(`form-data; name=%q`, p.name)
		if p.filename != "" {
			cd += fmt.Sprintf(`; filename=%q`, p.filename)
			hdr.Set("Content-Type", "application/octet-stream")
		}
		hdr.Set("Content-Disposition", cd)
		pw, err := w.CreatePart(hdr)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = pw.Write(p.data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.FormDataContentType()
}

func (h *documentHarness) upload(key string, parts ...part) *apitest.Response {
	h.T.Helper()
	return upload(h.Harness, key, parts...)
}

// upload posts parts to the upload endpoint.
func upload(h *apitest.Harness, key string, parts ...part) *apitest.Response {
	h.T.Helper()
	body, ct := multipartBody(h.T, parts...)
	return h.Send(apitest.Request{Method: "POST", Path: "/api/documents/upload", Key: key, Body: body,
		Header: http.Header{"Content-Type": {ct}}})
}

// leftovers lists the files in the blob store's temporary directory.
func (h *documentHarness) leftovers() []string {
	es, _ := os.ReadDir(filepath.Join(h.Config.BlobDir(), "tmp"))
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestUploadDocument(t *testing.T) {
	h := newDocumentHarness(t)
	pdf := fixtures.NPWPTextPDF(t)
	res := h.upload(h.AdminKey, field("type", "npwp"), field("externalRef", "customer-7"),
		part{name: "file", filename: `C:\\scans\\npwp card.pdf`, data: pdf})
	wantStatus(t, res, 202)
	id := str(res.Data(), "id")
	if !ids.Valid(ids.Document, id) {
		t.Fatalf("data.id %q is not a doc_ id", id)
	}
	d, err := h.Store.Documents.Get(context.Background(), h.Org.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%x", sha256Sum(pdf))
	if d.Status != "uploaded" || d.SHA256 != want || d.Size != int64(len(pdf)) || d.Format != "pdf" || d.Filename != "npwp card.pdf" ||
		d.Type != "npwp" || d.TypeHint != "npwp" || d.ExternalRef != "customer-7" || d.UploadedBy != h.Admin.ID || d.PasswordSealed != "" {
		t.Fatalf("stored document %+v", d)
	}
	bs, err := blobs.NewLocal(h.Config.BlobDir())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := blobs.ReadAll(context.Background(), bs, d.BlobKey, 1<<20); err != nil || !bytes.Equal(got, pdf) {
		t.Fatalf("stored file: %d bytes, %v", len(got), err)
	}
	starts, inputs := h.temporal.started()
	if len(starts) != 1 {
		t.Fatalf("%d pipeline starts", len(starts))
	}
	if wantOpts := docwf.DocumentStartOptions(inputs[0]); starts[0].ID != id || starts[0].TaskQueue != wantOpts.TaskQueue {
		t.Errorf("start options %+v", starts[0])
	}
	if in := inputs[0]; in.DocumentID != id || in.OrgID != h.Org.ID || in.SHA256 != want || in.TypeHint != "npwp" ||
		in.Filename != "npwp card.pdf" || in.PasswordTimeout != h.Config.Documents.PasswordTimeout {
		t.Errorf("pipeline input %+v", in)
	}
	if left := h.leftovers(); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// The document reads back through the API before the pipeline has run.
	got := h.Do("GET", "/api/documents/"+id, h.AdminKey, nil)
	wantStatus(t, got, 200)
	if v := got.Data(); v["status"] != "uploaded" || v["sha256"] != want || v["latestExtraction"] != nil || v["format"] != "pdf" {
		t.Errorf("GET = %s", got.Body)
	}
}

func sha256Sum(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}

// TestUploadPasswordIsSealed: the password is stored sealed, bound to the document, and is
// in neither the pipeline's input nor any column in clear.
func TestUploadPasswordIsSealed(t *testing.T) {
	h := newDocumentHarness(t)
	res := h.upload(h.AdminKey, filePart(fixtures.NPWPEncryptedPDF(t)), field("password", fixtures.UserPassword))
	wantStatus(t, res, 202)
	id := str(res.Data(), "id")
	d, err := h.Store.Documents.Get(context.Background(), h.Org.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(d.PasswordSealed, fixtures.UserPassword) || d.PasswordSealed == "" {
		t.Fatalf("password stored as %q", d.PasswordSealed)
	}
	plain, err := h.box.Open(d.PasswordSealed, store.DocumentPasswordContext(id))
	if err != nil || string(plain) != fixtures.UserPassword {
		t.Fatalf("sealed password opens to %q, %v", plain, err)
	}
	if _, err := h.box.Open(d.PasswordSealed, store.DocumentPasswordContext(ids.New(ids.Document))); err == nil {
		t.Error("the sealed password opens for another document")
	}
	_, inputs := h.temporal.started()
	raw, _ := json.Marshal(inputs)
	if bytes.Contains(raw, []byte(fixtures.UserPassword)) {
		t.Fatalf("the password is in the workflow input: %s", raw)
	}
	var row map[string]any
	if err := h.Store.DB.Table("documents").Where("id = ?", id).Take(&row).Error; err != nil {
		t.Fatal(err)
	}
	if dump, _ := json.Marshal(row); bytes.Contains(dump, []byte(fixtures.UserPassword)) {
		t.Fatalf("the password is in the database in clear: %s", dump)
	}
}

func TestUploadRefusals(t *testing.T) {
	h := newDocumentHarness(t)
	pdf := fixtures.NPWPTextPDF(t)
	png, err := fixtures.PNG(image.NewGray(image.Rect(0, 0, 8, 8)))
	if err != nil {
		t.Fatal(err)
	}
	big := append(append([]byte{}, pdf[:100]...), bytes.Repeat([]byte{'x'}, testUploadCap)...)
	tests := []struct {
		name   string
		parts  []part
		status int
		fields []string // the fieldErrors of a 400
		msg    string   // the error of the others
	}{
		{"not a document", []part{filePart(fixtures.NotADocument(t))}, 415, nil, "unsupported media type: the file must be a PDF, PNG, JPEG or TIFF"},
		{"a file over the cap", []part{filePart(big)}, 413, nil, api.MsgTooLarge},
		{"no file", []part{field("type", "npwp")}, 400, []string{"file"}, ""},
		{"an empty file", []part{filePart(nil)}, 400, []string{"file"}, ""},
		{"two files", []part{filePart(pdf), filePart(pdf)}, 400, []string{"file"}, ""},
		{"an unknown field", []part{filePart(pdf), field("colour", "red")}, 400, []string{"colour"}, ""},
		{"an unknown type", []part{filePart(pdf), field("type", "invoice")}, 400, []string{"type"}, ""},
		{"a password for an image", []part{{name: "file", filename: "p.png", data: png}, field("password", "x")}, 400, []string{"password"}, ""},
		{"a field too long", []part{filePart(pdf), field("externalRef", strings.Repeat("r", 201))}, 400, []string{"externalRef"}, ""},
		{"a field given twice", []part{filePart(pdf), field("type", "npwp"), field("type", "ktp")}, 400, []string{"type"}, ""},
		{"a field that is not text", []part{filePart(pdf), field("externalRef", "\xff\xfe")}, 400, []string{"externalRef"}, ""},
		{"an empty externalId", []part{filePart(pdf), field("externalId", "")}, 400, []string{"externalId"}, ""},
		{"a part without a name", []part{filePart(pdf), field("", "x")}, 400, []string{"body"}, ""},
		{"too many parts", []part{filePart(pdf), field("a", "1"), field("b", "1"), field("c", "1"), field("d", "1"),
			field("e", "1"), field("f", "1"), field("g", "1"), field("h", "1")}, 400, []string{"body"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := upload(h.With(t), h.AdminKey, tt.parts...)
			if tt.status != 400 {
				wantExactError(t, res, tt.status, tt.msg)
			} else {
				wantStatus(t, res, 400)
				fe, _ := res.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)
				for _, f := range tt.fields {
					if _, ok := fe[f]; !ok {
						t.Errorf("no fieldErrors.%s in %s", f, res.Body)
					}
				}
			}
			if left := h.leftovers(); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
	if starts, _ := h.temporal.started(); len(starts) != 0 {
		t.Fatalf("a refused upload started %d pipelines", len(starts))
	}
	var n int64
	h.Store.DB.Model(&store.Document{}).Count(&n)
	if n != 0 {
		t.Fatalf("a refused upload stored %d documents", n)
	}
}

// TestUploadBodyChecks: the route's content type and body cap, before any part is read.
func TestUploadBodyChecks(t *testing.T) {
	h := newDocumentHarness(t)
	wantExactError(t, h.Do("POST", "/api/documents/upload", h.AdminKey, map[string]any{"file": "x"}), 415,
		api.MsgUnsupportedMedia+": use multipart/form-data")
	res := h.Send(apitest.Request{Method: "POST", Path: "/api/documents/upload", Key: h.AdminKey, Body: []byte("%PDF-1.4"),
		Header: http.Header{"Content-Type": {"application/pdf"}}})
	wantExactError(t, res, 415, api.MsgUnsupportedMedia+": use multipart/form-data")
	res = h.Send(apitest.Request{Method: "POST", Path: "/api/documents/upload", Key: h.AdminKey, Body: []byte("garbage"),
		Header: http.Header{"Content-Type": {"multipart/form-data"}}})
	wantStatus(t, res, 400)

	// A body over the cap without a Content-Length (chunked) is cut at the cap: 413.
	body, ct := multipartBody(t, filePart(append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte{'x'}, 2*testUploadCap)...)))
	req, _ := http.NewRequest("POST", h.URL+"/api/documents/upload", io.MultiReader(bytes.NewReader(body)))
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+h.AdminKey)
	req.ContentLength = -1
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || !strings.Contains(string(raw), api.MsgTooLarge) {
		t.Fatalf("chunked upload over the cap = %d %s", resp.StatusCode, raw)
	}
	// With a Content-Length over the cap nothing is read at all.
	req, _ = http.NewRequest("POST", h.URL+"/api/documents/upload", bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+h.AdminKey)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Fatalf("upload over the cap = %d", resp.StatusCode)
	}
	if left := h.leftovers(); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestUploadIdempotent: the same externalId with the same file and fields replays the first
// answer (one document, one pipeline); with another file it is 422.
func TestUploadIdempotent(t *testing.T) {
	h := newDocumentHarness(t)
	pdf := fixtures.NPWPTextPDF(t)
	first := h.upload(h.AdminKey, filePart(pdf), field("externalId", "scan-42"))
	wantStatus(t, first, 202)
	// The same parts in another order are the same request.
	again := h.upload(h.AdminKey, field("externalId", "scan-42"), filePart(pdf))
	wantStatus(t, again, 202)
	if again.JSON["idempotent"] != true || str(again.Data(), "id") != str(first.Data(), "id") {
		t.Fatalf("replay = %s, first %s", again.Body, first.Body)
	}
	wantReplay(t, h.upload(h.AdminKey, filePart(fixtures.KTPTextPDF(t)), field("externalId", "scan-42")), 422, api.MsgIdempotencyMismatch)
	if starts, _ := h.temporal.started(); len(starts) != 1 {
		t.Fatalf("%d pipelines started, want 1", len(starts))
	}
	// Another externalId is another document.
	wantStatus(t, h.upload(h.AdminKey, filePart(pdf), field("externalId", "scan-43")), 202)
	res := h.Do("GET", "/api/documents?externalId=scan-42", h.AdminKey, nil)
	wantStatus(t, res, 200)
	if res.JSON["total"] != 1.0 {
		t.Fatalf("documents with externalId scan-42: %s", res.Body)
	}
}

func TestUploadWithoutTemporal(t *testing.T) {
	h := newDocumentHarness(t)
	h.temporal.fail = fmt.Errorf("temporal: unavailable")
	wantExactError(t, h.upload(h.AdminKey, filePart(fixtures.NPWPTextPDF(t))), 503, api.MsgUnavailable)
	var n int64
	h.Store.DB.Model(&store.Document{}).Count(&n)
	if n != 0 {
		t.Fatalf("a document whose pipeline did not start was kept (%d rows)", n)
	}
}

// newDocument stores a document of org in status, with an NPWP extraction when the status
// has one.
func newDocument(t testing.TB, h *apitest.Harness, org string, status docintel.Status) *store.Document {
	t.Helper()
	ctx := context.Background()
	d := &store.Document{ID: ids.New(ids.Document), OrgID: org, Filename: "card.pdf", Format: "pdf", Size: 10,
		SHA256: strings.Repeat("ab", 32), BlobKey: blobs.KeyFor(strings.Repeat("ab", 32)), ExternalID: "ext-" + string(status)}
	if err := h.Store.Documents.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	switch status {
	case docintel.StatusUploaded:
	case docintel.StatusExtracted, docintel.StatusRequiresReview:
		x := &store.Extraction{ID: ids.New(ids.Extraction), OrgID: org, DocumentID: d.ID, Type: "npwp", Source: "ocr",
			Status: string(status), ConfidenceScore: 0.3, Flags: []string{"npwp_number:check_digit"},
			Fields: map[string]store.ExtractedField{
				"npwp_number": {Value: "09.254.294.8-407.000", Confidence: 0.3, Required: true, Found: true, Valid: new(bool), Problem: "check_digit"},
				"name":        {Value: "BUDI SANTOSO", Confidence: 0.95, Required: true, Found: true},
				"address":     {Required: true},
			}, CreatedAt: time.Now()}
		if err := h.Store.Documents.Update(ctx, org, d.ID, store.DocumentUpdate{Status: docintel.StatusProcessing, Type: "npwp"}); err != nil {
			t.Fatal(err)
		}
		if err := h.Store.Documents.Finish(ctx, x, time.Now()); err != nil {
			t.Fatal(err)
		}
	default:
		// Along the pipeline's moves (docintel.Lifecycle): accepted first, then status.
		for _, s := range []docintel.Status{docintel.StatusProcessing, status} {
			if err := h.Store.Documents.Update(ctx, org, d.ID, store.DocumentUpdate{Status: s}); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := h.Store.Documents.Get(ctx, org, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// newTemplate stores a template of org.
func newTemplate(t testing.TB, h *apitest.Harness, org string) *store.Template {
	t.Helper()
	tpl := &store.Template{ID: ids.New(ids.Template), OrgID: org, Type: "invoice", MustInclude: []string{"INVOICE"},
		Fields: []docintel.TemplateField{{Name: "total", Label: "Total", Required: true}}, CreatedAt: time.Now()}
	if err := h.Store.Documents.CreateTemplate(context.Background(), tpl); err != nil {
		t.Fatal(err)
	}
	return tpl
}

func TestReadDocuments(t *testing.T) {
	h := newDocumentHarness(t)
	review := newDocument(t, h.Harness, h.Org.ID, docintel.StatusRequiresReview)
	processing := newDocument(t, h.Harness, h.Org.ID, docintel.StatusProcessing)
	failed := newDocument(t, h.Harness, h.Org.ID, docintel.StatusFailed)
	other := h.NewTenant("Other")
	newDocument(t, h.Harness, other.Org.ID, docintel.StatusExtracted)
	viewer := h.Key("documents:view")

	res := h.Do("GET", "/api/documents/"+review.ID, viewer, nil)
	wantStatus(t, res, 200)
	d := res.Data()
	x, _ := d["latestExtraction"].(map[string]any)
	if d["status"] != "requires_review" || d["confidenceScore"] != 0.3 || x == nil || x["id"] != review.LatestExtractionID {
		t.Fatalf("GET = %s", res.Body)
	}
	if fields := x["fields"].(map[string]any); fields["name"] != "BUDI SANTOSO" || len(fields) != 2 {
		t.Errorf("fields %v: the values found, not the missing address", fields)
	}
	details := x["fieldDetails"].(map[string]any)
	if nd := details["npwp_number"].(map[string]any); nd["valid"] != false || nd["problem"] != "check_digit" {
		t.Errorf("npwp_number details %v", nd)
	}
	if ad := details["address"].(map[string]any); ad["value"] != nil || ad["required"] != true {
		t.Errorf("address details %v", ad)
	}

	tests := []struct {
		query string
		want  []string
	}{
		{"", []string{failed.ID, processing.ID, review.ID}},
		{"?status=processing,failed", []string{failed.ID, processing.ID}},
		{"?type=npwp", []string{review.ID}},
		{"?externalId=ext-failed", []string{failed.ID}},
		{"?q=" + review.ID, []string{review.ID}},
		{"?to=2000-01-01", nil},
		{"?limit=1&page=2", []string{processing.ID}},
	}
	for _, tt := range tests {
		res := h.Do("GET", "/api/documents"+tt.query, viewer, nil)
		wantStatus(t, res, 200)
		var got []string
		for _, row := range res.JSON["data"].([]any) {
			got = append(got, row.(map[string]any)["id"].(string))
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("GET /api/documents%s = %v, want %v", tt.query, got, tt.want)
		}
	}
	res = h.Do("GET", "/api/documents?summary=true&status=failed", viewer, nil)
	if sum, _ := res.JSON["summary"].(map[string]any); sum["processing"] != 1.0 || sum["failed"] != 1.0 || sum["extracted"] != 0.0 {
		t.Errorf("summary %s", res.Body)
	}
	for _, bad := range []string{"?status=done", "?colour=red", "?from=yesterday"} {
		wantStatus(t, h.Do("GET", "/api/documents"+bad, viewer, nil), 400)
	}

	res = h.Do("GET", "/api/documents/"+review.ID+"/extractions", viewer, nil)
	wantStatus(t, res, 200)
	if res.JSON["total"] != 1.0 {
		t.Errorf("extractions %s", res.Body)
	}
	wantExactError(t, h.Do("GET", "/api/documents/doc_00000000000000000000000000", viewer, nil), 404, api.MsgNotFound)
	wantExactError(t, h.Do("GET", "/api/documents/"+review.ID, other.Key, nil), 404, api.MsgNotFound)
}

func TestSubmitPassword(t *testing.T) {
	h := newDocumentHarness(t)
	waiting := newDocument(t, h.Harness, h.Org.ID, docintel.StatusPasswordRequired)
	done := newDocument(t, h.Harness, h.Org.ID, docintel.StatusExtracted)
	path := func(d *store.Document) string { return "/api/documents/" + d.ID + "/password" }

	wantExactError(t, h.Do("POST", path(done), h.AdminKey, map[string]any{"password": "x"}), 409,
		"state conflict: cannot transition extracted → processing")
	wantStatus(t, h.Do("POST", path(waiting), h.AdminKey, map[string]any{}), 400)
	wantStatus(t, h.Do("POST", path(waiting), h.AdminKey, map[string]any{"password": strings.Repeat("p", 1025)}), 400)

	// The pipeline tries it and says it was wrong: the document waits again, without it.
	h.temporal.password = func(id string) (docwf.PasswordRetryResult, error) {
		d, _ := h.Store.Documents.Get(context.Background(), h.Org.ID, id)
		plain, err := h.box.Open(d.PasswordSealed, store.DocumentPasswordContext(id))
		if d.Status != "processing" || err != nil || string(plain) != "guess" {
			t.Errorf("while the pipeline tries it: status %s, password %q, %v", d.Status, plain, err)
		}
		return docwf.PasswordRetryResult{Status: docintel.StatusPasswordRequired},
			h.Store.Documents.Update(context.Background(), h.Org.ID, id, store.DocumentUpdate{Status: docintel.StatusPasswordRequired, ForgetPassword: true})
	}
	res := h.Do("POST", path(waiting), h.AdminKey, map[string]any{"password": "guess"})
	wantStatus(t, res, 202)
	if res.Data()["status"] != "password_required" {
		t.Fatalf("after a wrong password: %s", res.Body)
	}
	if got := h.temporal.updates[0]; got.WorkflowID != waiting.ID || got.UpdateName != docwf.UpdateDocumentPassword ||
		got.WaitForStage != client.WorkflowUpdateStageCompleted {
		t.Errorf("update %+v", got)
	}
	if raw, _ := json.Marshal(h.temporal.updates[0].Args); strings.Contains(string(raw), "guess") {
		t.Fatalf("the password went to Temporal: %s", raw)
	}

	// The run refuses (it is not waiting): 409, and the claim is undone.
	h.temporal.password = func(string) (docwf.PasswordRetryResult, error) {
		return docwf.PasswordRetryResult{}, docwf.DocumentStateConflict("processing", "processing")
	}
	wantExactError(t, h.Do("POST", path(waiting), h.AdminKey, map[string]any{"password": "again"}), 409,
		"state conflict: cannot transition processing → processing")
	if d, _ := h.Store.Documents.Get(context.Background(), h.Org.ID, waiting.ID); d.Status != "password_required" || d.PasswordSealed != "" {
		t.Fatalf("after a refused update: %+v", d)
	}

	// The right one: processing.
	h.temporal.password = func(string) (docwf.PasswordRetryResult, error) {
		return docwf.PasswordRetryResult{Status: docintel.StatusProcessing}, nil
	}
	res = h.Do("POST", path(waiting), h.AdminKey, map[string]any{"password": fixtures.UserPassword})
	wantStatus(t, res, 202)
	if res.Data()["status"] != "processing" {
		t.Fatalf("after the right password: %s", res.Body)
	}
	// Now it is processing: another password is a conflict, before any call to Temporal.
	n := len(h.temporal.updates)
	wantExactError(t, h.Do("POST", path(waiting), h.AdminKey, map[string]any{"password": "x"}), 409,
		"state conflict: cannot transition processing → processing")
	if len(h.temporal.updates) != n {
		t.Error("a conflicting password was sent to the pipeline")
	}
}

func TestCorrectDocument(t *testing.T) {
	h := newDocumentHarness(t)
	doc := newDocument(t, h.Harness, h.Org.ID, docintel.StatusRequiresReview)
	busy := newDocument(t, h.Harness, h.Org.ID, docintel.StatusProcessing)
	path := "/api/documents/" + doc.ID + "/corrections"
	body := map[string]any{"fields": map[string]any{"npwp_number": "09.254.294.3-407.000"}}

	unbound := h.Key("extractions:write")
	wantExactError(t, h.Do("POST", path, unbound, body), 422, api.MsgNotBound)
	reviewer := &store.User{ID: ids.New(ids.User), OrgID: h.Org.ID, Email: "rev@example.com", Name: "Rev", Role: "reviewer"}
	if err := h.Store.Users.Create(context.Background(), reviewer); err != nil {
		t.Fatal(err)
	}
	key, _ := h.KeyWith(apitest.KeySpec{Scopes: []string{"extractions:write"}, ActAsUserID: reviewer.ID})

	wantExactError(t, h.Do("POST", "/api/documents/"+busy.ID+"/corrections", key, body), 409,
		"state conflict: cannot transition processing → extracted")
	for _, bad := range []map[string]any{{}, {"fields": map[string]any{}}, {"fields": map[string]any{"shoe_size": "44"}},
		{"fields": map[string]any{"name": nil}}, {"fields": map[string]any{"name": strings.Repeat("n", 1001)}}, {"fields": "x"}} {
		wantStatus(t, h.Do("POST", path, key, bad), 400)
	}

	res := h.Do("POST", path, key, body)
	wantStatus(t, res, 201)
	x := res.Data()
	if !ids.Valid(ids.Extraction, str(x, "id")) || x["previousExtractionId"] != doc.LatestExtractionID || x["actorUserId"] != reviewer.ID ||
		x["status"] != "extracted" || x["source"] != "correction" || x["confidenceScore"] != 1.0 {
		t.Fatalf("correction = %s", res.Body)
	}
	if f := x["fields"].(map[string]any); f["npwp_number"] != "09.254.294.3-407.000" || f["name"] != "BUDI SANTOSO" {
		t.Errorf("corrected fields %v", f)
	}
	got := h.Do("GET", "/api/documents/"+doc.ID, h.AdminKey, nil)
	if d := got.Data(); d["status"] != "extracted" || d["latestExtractionId"] != x["id"] || len(d["flags"].([]any)) != 0 {
		t.Errorf("document after correction %s", got.Body)
	}
	wantStatus(t, h.Do("GET", "/api/documents/"+doc.ID+"/extractions", h.AdminKey, nil), 200)
	// The audit log names the document and the reviewer.
	var entry store.AuditLog
	if err := h.Store.DB.Where("org_id = ? AND action = ?", h.Org.ID, "POST /api/documents/:id/corrections").Last(&entry).Error; err != nil ||
		entry.ResourceID != doc.ID || entry.UserID != reviewer.ID {
		t.Errorf("audit entry %+v, %v", entry, err)
	}
}

func TestTemplates(t *testing.T) {
	h := newDocumentHarness(t)
	def := map[string]any{"type": "invoice", "mustInclude": []string{"INVOICE", "Total"}, "mustExclude": []string{"NPWP"},
		"fields": []map[string]any{{"name": "total", "label": "Total", "validator": "numeric", "required": true},
			{"name": "number", "regex": `INV-(\d+)`}}}
	res := h.Do("POST", "/api/templates", h.AdminKey, def)
	wantStatus(t, res, 201)
	id := str(res.Data(), "id")
	if !strings.HasPrefix(id, "tpl_") || res.Data()["type"] != "invoice" || len(res.Data()["fields"].([]any)) != 2 {
		t.Fatalf("created %s", res.Body)
	}
	got := h.Do("GET", "/api/templates/"+id, h.Key("templates:view"), nil)
	wantStatus(t, got, 200)
	if !bytes.Equal(mustJSON(t, got.Data()), mustJSON(t, res.Data())) {
		t.Errorf("GET %s\nPOST %s", got.Body, res.Body)
	}
	list := h.Do("GET", "/api/templates?q=voice", h.AdminKey, nil)
	if list.JSON["total"] != 1.0 {
		t.Errorf("list %s", list.Body)
	}
	// The type is a valid upload hint now.
	wantStatus(t, h.upload(h.AdminKey, filePart(fixtures.NPWPTextPDF(t)), field("type", "invoice")), 202)

	tests := []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"the same type again", def, []string{"type"}},
		{"a built-in type", map[string]any{"type": "npwp", "mustInclude": []string{"x"}, "fields": []map[string]any{{"name": "a", "label": "A"}}}, []string{"type"}},
		{"every problem at once", map[string]any{"type": "Bad Type", "mustInclude": []string{}, "fields": []map[string]any{
			{"name": "a", "regex": "(unclosed"}, {"name": "a", "label": "A", "validator": "astrology"}, {"name": "b"}}},
			[]string{"type", "mustInclude", "fields[0].regex", "fields[1].name", "fields[1].validator", "fields[2]"}},
		{"an unknown key", map[string]any{"type": "x", "colour": "red"}, []string{"colour"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := h.With(t).Do("POST", "/api/templates", h.AdminKey, tt.body)
			wantStatus(t, res, 400)
			fe := res.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)
			for _, f := range tt.fields {
				if _, ok := fe[f]; !ok {
					t.Errorf("no fieldErrors.%s in %s", f, res.Body)
				}
			}
		})
	}
	wantExactError(t, h.Do("GET", "/api/templates/tpl_00000000000000000000000000", h.AdminKey, nil), 404, api.MsgNotFound)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzUploadDocument sends arbitrary multipart bodies to the upload endpoint: the answer is
// always a documented one (and matches openapi.yaml), never a 500, and no temporary file is
// left behind.
func FuzzUploadDocument(f *testing.F) {
	h := newDocumentHarness(f)
	const boundary = "fuzzboundary"
	body := func(parts ...part) []byte {
		b, _ := multipartBodyWith(f, boundary, parts...)
		return b
	}
	// Small files: the handler looks at the first bytes only, and the fuzzer mutates small
	// inputs far faster.
	pdf := []byte("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n")
	for _, seed := range [][]byte{
		body(filePart(pdf)),
		body(filePart(pdf), field("type", "npwp"), field("externalId", "fuzz-1"), field("externalRef", "r")),
		body(field("password", "x"), filePart(pdf)),
		body(filePart(fixtures.NotADocument(f))),
		body(filePart(pdf[:20])),
		body(filePart([]byte("\x89PNG\r\n\x1a\n truncated png"))),
		body(field("type", "ktp")),
		body(part{name: "file", filename: "../../etc/passwd", data: []byte("%PDF-1.4\n%%EOF")}),
		body(filePart(pdf))[:150],
		[]byte("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n%PDF"),
		[]byte("--" + boundary + "--\r\n"),
		[]byte("not multipart at all"),
		{},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		res := h.With(t).Send(apitest.Request{Method: "POST", Path: "/api/documents/upload", Key: h.AdminKey, Body: raw,
			Header: http.Header{"Content-Type": {"multipart/form-data; boundary=" + boundary}}})
		switch res.Status {
		case 202, 400, 413, 415, 422:
		default:
			t.Fatalf("%q → %d %s", raw, res.Status, res.Body)
		}
		if left := h.leftovers(); len(left) != 0 {
			t.Fatalf("temporary files left: %v", left)
		}
	})
}

// TestDocumentsWithoutSecretsKey: documents do not depend on the webhooks' machinery. Without
// config secrets.key the webhook endpoints answer 503, a document without a password is
// accepted all the same, and only sealing a password (at upload or later) answers 503.
func TestDocumentsWithoutSecretsKey(t *testing.T) {
	dt := &documentTemporal{}
	h := &documentHarness{Harness: apitest.New(t, apitest.Options{Temporal: dt, Config: func(c *config.Config) {
		c.Secrets.Key = ""
		c.Documents.MaxUploadBytes = testUploadCap
	}}), temporal: dt}
	h.NoRateLimits(h.Org.ID)

	wantExactError(t, h.Do("POST", "/api/webhooks", h.AdminKey, map[string]any{"url": "https://example.com/hook", "events": []string{"*"}}),
		503, api.MsgUnavailable)
	wantStatus(t, h.upload(h.AdminKey, filePart(fixtures.NPWPTextPDF(t))), 202)
	wantExactError(t, h.upload(h.AdminKey, filePart(fixtures.NPWPEncryptedPDF(t)), field("password", fixtures.UserPassword)),
		503, api.MsgUnavailable)

	d := &store.Document{ID: ids.New(ids.Document), OrgID: h.Org.ID, Filename: "locked.pdf", Format: "pdf", BlobKey: "none"}
	if err := h.Store.Documents.Create(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	if err := h.Store.DB.Model(&store.Document{}).Where("id = ?", d.ID).Update("status", string(docintel.StatusPasswordRequired)).Error; err != nil {
		t.Fatal(err)
	}
	wantExactError(t, h.Do("POST", "/api/documents/"+d.ID+"/password", h.AdminKey, map[string]any{"password": "x"}), 503, api.MsgUnavailable)
	if got, err := h.Store.Documents.Get(context.Background(), h.Org.ID, d.ID); err != nil || got.Status != string(docintel.StatusPasswordRequired) {
		t.Fatalf("document after a refused password: %+v, %v", got, err)
	}
}
