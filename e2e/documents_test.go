package e2e

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	temporalclient "go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"

	"github.com/svcplatform/svc/internal/documents/fixtures"
)

// forDocument lists the events of one document the sink got, in the order they occurred.
func forDocument(s *eventSink, id string) []orchEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []orchEvent
	for _, ev := range s.events {
		if ev.Data["documentId"] == id {
			out = append(out, ev)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].OccurredAt < out[j].OccurredAt })
	return out
}

// waitDocument returns the first event name of document id, waiting for it.
func waitDocument(t *testing.T, s *eventSink, name, id string) orchEvent {
	t.Helper()
	var found orchEvent
	eventually(t, 60*time.Second, name+" of "+id, func() bool {
		for _, ev := range forDocument(s, id) {
			if ev.Event == name {
				found = ev
				return true
			}
		}
		return false
	})
	return found
}

// countDocument is how many events name document id has had.
func countDocument(s *eventSink, name, id string) int {
	n := 0
	for _, ev := range forDocument(s, id) {
		if ev.Event == name {
			n++
		}
	}
	return n
}

// uploadFile posts a multipart upload of data with fields and returns the answer (checked against openapi.yaml).
func uploadFile(c client, filename string, data []byte, fields map[string]string) response {
	c.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	fw, err := w.CreateFormFile("file", filename)
	if err != nil {
		c.t.Fatal(err)
	}
	_, _ = fw.Write(data)
	_ = w.Close()
	req, err := http.NewRequest("POST", c.base+"/api/documents/upload", &buf)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.send(req)
}

// document polls GET /api/documents/:id until its status is one of want.
func document(t *testing.T, c client, id string, within time.Duration, want ...string) map[string]any {
	t.Helper()
	var d map[string]any
	eventually(t, within, fmt.Sprintf("document %s to be %v", id, want), func() bool {
		r := c.do("GET", "/api/documents/"+id, nil)
		if r.Status != 200 {
			t.Fatalf("GET document = %d %s", r.Status, r.Raw)
		}
		d = r.data(t)
		for _, w := range want {
			if d["status"] == w {
				return true
			}
		}
		return false
	})
	return d
}

// fieldValues are the values of a document's latest extraction.
func fieldValues(d map[string]any) map[string]any {
	x, _ := d["latestExtraction"].(map[string]any)
	f, _ := x["fields"].(map[string]any)
	return f
}

// wantFields fails unless got holds every field of want with the same value.
func wantFields(t *testing.T, got map[string]any, want map[string]string) {
	t.Helper()
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s = %v, want %q (all: %v)", name, got[name], v, got)
		}
	}
}

// recordHistory writes the history of workflow id to workflows/documents/testdata/document_<name>.json
// when SVC_RECORD_HISTORIES is set, for TestDocumentReplay (workflows) to replay.
func recordHistory(t *testing.T, c temporalclient.Client, id, name string) {
	t.Helper()
	recordHistoryTo(t, c, id, filepath.Join("..", "workflows", "documents", "testdata", "document_"+name+".json"))
}

// recordHistoryTo writes the history of workflow id to path when SVC_RECORD_HISTORIES is set.
func recordHistoryTo(t *testing.T, c temporalclient.Client, id, path string) {
	t.Helper()
	if os.Getenv("SVC_RECORD_HISTORIES") == "" {
		return
	}
	hist := &historypb.History{}
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		hist.Events = append(hist.Events, ev)
	}
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s: %d events", path, len(hist.Events))
}

// wrongPassword is the wrong password TestDocumentsEndToEnd tries first.
const wrongPassword = "not-it"

// TestDocumentsEndToEnd sends every fixture through the real pipeline of the dev stack
// (embedded Temporal, worker with qpdf, poppler and tesseract, SQLite, local blob store) and
// a loopback receiver subscribed through POST /api/webhooks. The documents run concurrently.
func TestDocumentsEndToEnd(t *testing.T) {
	// The passwords the test sends must never be logged.
	s := boot(t, t.TempDir(), bootOptions{secrets: []string{fixtures.UserPassword, wrongPassword}})
	as := func(t *testing.T, key string) client { return client{t: t, base: s.BaseURL, key: key} }
	admin := as(t, s.Credentials.APIKey)
	sink := newEventSink(t)
	sink.subscribe(admin, "*")
	analyst := newPerson(admin, "analyst", "documents:write", "documents:view", "extractions:write")
	npwp, ktp, passport := fixtures.DefaultNPWP().ExpectedFields(), fixtures.DefaultKTP().ExpectedFields(), fixtures.DefaultPassport().ExpectedFields()
	const ocrWithin = 3 * time.Minute

	t.Run("not a document is refused at upload", func(t *testing.T) {
		res := uploadFile(as(t, analyst.key), "archive.zip", fixtures.NotADocument(t), nil)
		if res.Status != 415 {
			t.Fatalf("upload = %d %s", res.Status, res.Raw)
		}
	})

	t.Run("pipeline", func(t *testing.T) {
		t.Run("text npwp pdf: extracted with its events", func(t *testing.T) {
			t.Parallel()
			c := as(t, analyst.key)
			res := uploadFile(c, "npwp.pdf", fixtures.NPWPTextPDF(t), map[string]string{"externalRef": "customer-7", "externalId": "npwp-text-1"})
			if res.Status != 202 {
				t.Fatalf("upload = %d %s", res.Status, res.Raw)
			}
			id := str(res.data(t)["id"])
			d := document(t, c, id, time.Minute, "extracted", "requires_review", "failed")
			if d["status"] != "extracted" || d["type"] != "npwp" || d["externalId"] != "npwp-text-1" {
				t.Fatalf("document = %v", d)
			}
			wantFields(t, fieldValues(d), npwp)
			if len(fieldValues(d)) != len(npwp) {
				t.Errorf("fields %v, want exactly %v", fieldValues(d), npwp)
			}
			extracted := waitDocument(t, sink, "document.extracted", id)
			var names []string
			for _, ev := range forDocument(sink, id) {
				names = append(names, ev.Event)
				// The sink checked the X-Service- and X-DocInt- sets (wantDelivery); each came at the first attempt.
				if ev.Header.Get("X-DocInt-Attempt") != "1" {
					t.Errorf("%s headers %v", ev.Event, ev.Header)
				}
				if ev.OrgID != s.Credentials.OrgID {
					t.Errorf("%s orgId %s", ev.Event, ev.OrgID)
				}
			}
			if want := []string{"document.uploaded", "document.classified", "document.extracted"}; !reflect.DeepEqual(names, want) {
				t.Errorf("events %v, want %v", names, want)
			}
			up := waitDocument(t, sink, "document.uploaded", id)
			wantKeys(t, up, "documentId", "type", "filename", "sha256", "externalRef")
			if up.Data["filename"] != "npwp.pdf" || up.Data["externalRef"] != "customer-7" || up.Data["type"] != nil || up.Data["sha256"] != d["sha256"] {
				t.Errorf("document.uploaded = %v", up.Data)
			}
			cls := waitDocument(t, sink, "document.classified", id)
			wantKeys(t, cls, "documentId", "type", "classificationConfidence")
			if cls.Data["type"] != "npwp" || cls.Data["classificationConfidence"].(float64) <= 0.5 {
				t.Errorf("document.classified = %v", cls.Data)
			}
			wantKeys(t, extracted, "documentId", "extractionId", "type", "confidenceScore", "fields")
			if extracted.Data["extractionId"] != d["latestExtractionId"] || extracted.Data["type"] != "npwp" ||
				extracted.Data["confidenceScore"] != d["confidenceScore"] || !jsonEqual(extracted.Data["fields"], npwp) {
				t.Errorf("document.extracted = %v", extracted.Data)
			}

			// An analyst corrects the name: a new extraction, extraction.corrected.
			cr := c.do("POST", "/api/documents/"+id+"/corrections", map[string]any{"fields": map[string]any{"name": "BUDI SANTOSO, S.E."}})
			if cr.Status != 201 {
				t.Fatalf("correction = %d %s", cr.Status, cr.Raw)
			}
			x := cr.data(t)
			if x["previousExtractionId"] != d["latestExtractionId"] || x["actorUserId"] != analyst.userID || x["status"] != "extracted" {
				t.Errorf("correction = %v", x)
			}
			corrected := waitDocument(t, sink, "extraction.corrected", id)
			wantKeys(t, corrected, "documentId", "extractionId", "actorUserId", "previousExtractionId")
			if corrected.Data["extractionId"] != x["id"] || corrected.Data["actorUserId"] != analyst.userID ||
				corrected.Data["previousExtractionId"] != d["latestExtractionId"] || corrected.Header.Get("X-DocInt-Event") != "extraction.corrected" {
				t.Errorf("extraction.corrected = %v", corrected.Data)
			}
			after := document(t, c, id, time.Second, "extracted")
			if after["latestExtractionId"] != x["id"] || fieldValues(after)["name"] != "BUDI SANTOSO, S.E." {
				t.Errorf("after the correction: %v", after)
			}
			if l := c.do("GET", "/api/documents/"+id+"/extractions", nil); l.Status != 200 || l.Body["total"] != 2.0 {
				t.Errorf("extractions = %d %s", l.Status, l.Raw)
			}
			recordHistory(t, s.App.Temporal, id, "text_pdf_extracted")
			recordHistory(t, s.App.Temporal, str(x["id"]), "correction")
			// A key bound to no user may not correct.
			k := admin.do("POST", "/api/api-keys", map[string]any{"name": "robot", "scopes": []string{"extractions:write"}})
			if k.Status != 201 {
				t.Fatalf("POST /api/api-keys = %d %s", k.Status, k.Raw)
			}
			robot := as(t, str(k.data(t)["key"]))
			if r := robot.do("POST", "/api/documents/"+id+"/corrections", map[string]any{"fields": map[string]any{"name": "X"}}); r.Status != 422 ||
				r.Body["error"] != "api_key_not_bound_to_user" {
				t.Errorf("correction by an unbound key = %d %s", r.Status, r.Raw)
			}
		})

		t.Run("bad check digit: requires review with its flag", func(t *testing.T) {
			t.Parallel()
			c := as(t, analyst.key)
			id := str(uploadFile(c, "npwp-bad.pdf", fixtures.NPWPBadCheckDigitPDF(t), nil).data(t)["id"])
			d := document(t, c, id, time.Minute, "extracted", "requires_review", "failed")
			if d["status"] != "requires_review" || !jsonEqual(d["flags"], []string{"npwp_number:check_digit"}) {
				t.Fatalf("document = %v", d)
			}
			rv := waitDocument(t, sink, "document.requires_review", id)
			wantKeys(t, rv, "documentId", "extractionId", "confidenceScore", "flags")
			if !jsonEqual(rv.Data["flags"], []string{"npwp_number:check_digit"}) || rv.Data["confidenceScore"].(float64) > 0.3 {
				t.Errorf("document.requires_review = %v", rv.Data)
			}
			recordHistory(t, s.App.Temporal, id, "requires_review")
		})

		t.Run("truncated pdf: failed in inspect", func(t *testing.T) {
			t.Parallel()
			c := as(t, analyst.key)
			id := str(uploadFile(c, "cut.pdf", fixtures.TruncatedPDF(t), nil).data(t)["id"])
			d := document(t, c, id, time.Minute, "failed", "extracted", "requires_review")
			if d["status"] != "failed" || d["failedStage"] != "inspect" || d["errorMessage"] == nil {
				t.Fatalf("document = %v", d)
			}
			f := waitDocument(t, sink, "document.failed", id)
			wantKeys(t, f, "documentId", "errorMessage", "stage")
			if f.Data["stage"] != "inspect" || f.Data["errorMessage"] != d["errorMessage"] {
				t.Errorf("document.failed = %v", f.Data)
			}
			recordHistory(t, s.App.Temporal, id, "failed_inspect")
		})

		opens := []struct {
			name   string
			data   func(testing.TB) []byte
			fields map[string]string
		}{
			{"owner password only: extracted without a password", fixtures.NPWPOwnerOnlyPDF, nil},
			{"encrypted with its password at upload", fixtures.NPWPEncryptedPDF, map[string]string{"password": fixtures.UserPassword}},
		}
		for _, tt := range opens {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				c := as(t, analyst.key)
				id := str(uploadFile(c, "locked.pdf", tt.data(t), tt.fields).data(t)["id"])
				d := document(t, c, id, time.Minute, "extracted", "requires_review", "failed", "password_required")
				if d["status"] != "extracted" {
					t.Fatalf("document = %v", d)
				}
				wantFields(t, fieldValues(d), npwp)
			})
		}

		t.Run("encrypted, terminated in the Temporal UI while it waits: ended by the reconciler", func(t *testing.T) {
			t.Parallel()
			c := as(t, analyst.key)
			id := str(uploadFile(c, "locked.pdf", fixtures.NPWPEncryptedPDF(t), nil).data(t)["id"])
			if d := document(t, c, id, time.Minute, "password_required", "failed", "extracted"); d["status"] != "password_required" {
				t.Fatalf("document = %v", d)
			}
			// What an operator's Terminate in the Temporal UI does: the run ends without its code.
			if err := s.App.Temporal.TerminateWorkflow(context.Background(), id, "", "operator: duplicate upload"); err != nil {
				t.Fatal(err)
			}
			reconcileUntil(t, s, "the terminated document failed", func() bool {
				return document(t, c, id, time.Second, "password_required", "failed")["status"] == "failed"
			})
			d := document(t, c, id, time.Second, "failed")
			if !strings.Contains(str(d["errorMessage"]), "operator: duplicate upload") {
				t.Errorf("reconciled document = %v", d)
			}
			failed := waitDocument(t, sink, "document.failed", id)
			if !strings.Contains(str(failed.Data["errorMessage"]), "operator: duplicate upload") {
				t.Errorf("document.failed = %v", failed.Data)
			}
		})

		t.Run("encrypted: password required, a wrong one, then the right one", func(t *testing.T) {
			t.Parallel()
			c := as(t, analyst.key)
			id := str(uploadFile(c, "locked.pdf", fixtures.NPWPEncryptedPDF(t), nil).data(t)["id"])
			d := document(t, c, id, time.Minute, "password_required", "failed", "extracted")
			if d["status"] != "password_required" {
				t.Fatalf("document = %v", d)
			}
			pr := waitDocument(t, sink, "document.password_required", id)
			wantKeys(t, pr, "documentId", "errorMessage")

			wrong := c.do("POST", "/api/documents/"+id+"/password", map[string]any{"password": wrongPassword})
			if wrong.Status != 202 || wrong.data(t)["status"] != "password_required" {
				t.Fatalf("wrong password = %d %s", wrong.Status, wrong.Raw)
			}
			eventually(t, 30*time.Second, "a second document.password_required", func() bool {
				return countDocument(sink, "document.password_required", id) == 2
			})
			right := c.do("POST", "/api/documents/"+id+"/password", map[string]any{"password": fixtures.UserPassword})
			if right.Status != 202 || right.data(t)["status"] == "password_required" {
				t.Fatalf("right password = %d %s", right.Status, right.Raw)
			}
			d = document(t, c, id, time.Minute, "extracted", "requires_review", "failed")
			if d["status"] != "extracted" {
				t.Fatalf("document = %v", d)
			}
			wantFields(t, fieldValues(d), npwp)
			// The passwords are in neither the run's history nor, now, the database.
			hist := s.App.Temporal.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			events, sawFilename := 0, false
			for hist.HasNext() {
				ev, err := hist.Next()
				if err != nil {
					t.Fatal(err)
				}
				raw, err := proto.Marshal(ev)
				if err != nil {
					t.Fatal(err)
				}
				for _, pw := range []string{wrongPassword, fixtures.UserPassword} {
					if bytes.Contains(raw, []byte(pw)) {
						t.Fatalf("a password is in the workflow history: event %d %s", ev.GetEventId(), ev.GetEventType())
					}
				}
				sawFilename = sawFilename || bytes.Contains(raw, []byte("locked.pdf"))
				events++
			}
			if events < 10 || !sawFilename {
				t.Fatalf("%d history events read, the input's file name seen: %v", events, sawFilename)
			}
			if row, err := s.App.Store.Documents.Get(context.Background(), s.Credentials.OrgID, id); err != nil || row.PasswordSealed != "" {
				t.Errorf("after extraction the sealed password is still stored: %q, %v", row.PasswordSealed, err)
			}
			recordHistory(t, s.App.Temporal, id, "password_retries")
			again := c.do("POST", "/api/documents/"+id+"/password", map[string]any{"password": fixtures.UserPassword})
			if again.Status != 409 || again.Body["error"] != "state conflict: cannot transition extracted → processing" {
				t.Errorf("a password for an extracted document = %d %s", again.Status, again.Raw)
			}
		})

		ocr := []struct {
			name   string
			file   string
			data   func(testing.TB) []byte
			typ    string
			fields map[string]string
		}{
			{"npwp photo png", "npwp.png", fixtures.NPWPPhotoPNG, "npwp", npwp},
			{"npwp scanned pdf", "scan.pdf", fixtures.NPWPScanPDF, "npwp", npwp},
			{"npwp rotated photo", "rotated.jpg", fixtures.NPWPRotatedPhotoJPEG, "npwp", npwp},
			{"npwp phone photo with EXIF orientation", "phone.jpg", fixtures.NPWPPhoneJPEG, "npwp", npwp},
			{"npwp tiff", "npwp.tiff", fixtures.NPWPTIFF, "npwp", npwp},
			{"npwp degraded scan", "degraded.pdf", fixtures.NPWPDegradedScanPDF, "npwp", map[string]string{"npwp_number": npwp["npwp_number"], "name": npwp["name"]}},
			{"ktp text pdf", "ktp.pdf", fixtures.KTPTextPDF, "ktp", ktp},
			{"ktp photo", "ktp.jpg", fixtures.KTPPhotoJPEG, "ktp", ktp},
			{"passport text pdf", "passport.pdf", fixtures.PassportTextPDF, "passport", passport},
			{"passport photo", "passport.png", fixtures.PassportPhotoPNG, "passport", passport},
		}
		for _, tt := range ocr {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				c := as(t, analyst.key)
				res := uploadFile(c, tt.file, tt.data(t), nil)
				if res.Status != 202 {
					t.Fatalf("upload = %d %s", res.Status, res.Raw)
				}
				id := str(res.data(t)["id"])
				d := document(t, c, id, ocrWithin, "extracted", "requires_review", "failed")
				if d["type"] != tt.typ || d["status"] == "failed" {
					t.Fatalf("document = %v", d)
				}
				wantFields(t, fieldValues(d), tt.fields)
				final := "document.extracted"
				if d["status"] == "requires_review" {
					final = "document.requires_review"
					if len(d["flags"].([]any)) == 0 {
						t.Errorf("requires review without a flag: %v", d)
					}
				}
				waitDocument(t, sink, final, id)
				t.Logf("%s: %s, confidence %v, flags %v", tt.name, d["status"], d["confidenceScore"], d["flags"])
			})
		}
	})

	t.Run("lists", func(t *testing.T) {
		c := as(t, analyst.key)
		// The truncated PDF, and the one whose run an operator terminated.
		r := c.do("GET", "/api/documents?status=failed&summary=true", nil)
		if r.Status != 200 || r.Body["total"] != 2.0 {
			t.Fatalf("failed documents = %d %s", r.Status, r.Raw)
		}
		if sum := r.Body["summary"].(map[string]any); sum["extracted"].(float64) < 5 {
			t.Errorf("summary %v", sum)
		}
		if r := c.do("GET", "/api/documents?type=passport", nil); r.Body["total"] != 2.0 {
			t.Errorf("passports = %s", r.Raw)
		}
	})
}
