package automation_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/workflows"
	autowf "github.com/svcplatform/svc/workflows/automation"
)

// starter stands in for the Temporal service (e2e/automation_test.go runs the real one): it
// records the runs started, or fails every start.
type starter struct {
	client.Client
	mu     sync.Mutex
	starts []client.StartWorkflowOptions
	inputs []autowf.RunInput
	fail   error
}

func (s *starter) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	if wf != autowf.RunWorkflowName {
		return nil, errors.New("unexpected workflow")
	}
	s.starts = append(s.starts, o)
	s.inputs = append(s.inputs, args[0].(autowf.RunInput))
	return nil, nil
}

// document stores a finished document of type docType for org; found names the fields its
// extraction found. With a template, docType is the organisation's custom type.
func document(t *testing.T, s *store.Store, org, docType string, template bool, status docintel.Status, found ...string) string {
	t.Helper()
	ctx := context.Background()
	if template {
		tpl := &store.Template{ID: ids.New(ids.Template), OrgID: org, Type: docType, MustInclude: []string{docType},
			Fields: []docintel.TemplateField{{Name: "number", Label: "No", Required: true}, {Name: "total", Label: "Total"}}}
		if err := s.Documents.CreateTemplate(ctx, tpl); err != nil && !strings.Contains(err.Error(), "exists") {
			t.Fatal(err)
		}
	}
	d := &store.Document{ID: ids.New(ids.Document), OrgID: org, Type: docType, Filename: "x.pdf", Format: "pdf", Size: 1,
		SHA256: strings.Repeat("a", 64), BlobKey: "k", CreatedAt: time.Now().UTC()}
	if err := s.Documents.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := s.Documents.Update(ctx, org, d.ID, store.DocumentUpdate{Status: docintel.StatusProcessing}); err != nil {
		t.Fatal(err)
	}
	if status == docintel.StatusProcessing {
		return d.ID
	}
	fields := map[string]store.ExtractedField{"number": {Required: true}, "total": {}}
	for _, f := range found {
		fields[f] = store.ExtractedField{Value: "x", Found: true, Confidence: 0.9}
	}
	x := &store.Extraction{ID: ids.New(ids.Extraction), OrgID: org, DocumentID: d.ID, Type: docType, Source: "text_layer",
		Status: string(status), Fields: fields, CreatedAt: time.Now().UTC()}
	if err := s.Documents.Finish(ctx, x, time.Now()); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

func want(t *testing.T, res *apitest.Response, status int, errText string) {
	t.Helper()
	if res.Status != status || !strings.Contains(string(res.Body), errText) {
		t.Fatalf("status %d %s, want %d with %q", res.Status, res.Body, status, errText)
	}
}

// TestAutomationRuns drives POST/GET /api/automations on every backend: bad input, subjects
// that are not ready, another organisation's ids, a start, its replay and a failed start.
func TestAutomationRuns(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			tc := &starter{}
			h := apitest.New(t, apitest.Options{Backend: &b, Temporal: tc})
			h.NoRateLimits(h.Org.ID)
			admin, org := h.AdminKey, h.Org.ID
			other := h.NewTenant("Other")

			res := h.Do("POST", "/api/automations", admin, map[string]any{"kind": "poem", "subjectId": ""})
			want(t, res, 400, `"kind"`)
			want(t, res, 400, `"subjectId"`)
			want(t, h.Do("POST", "/api/automations", admin, map[string]any{"kind": "case_summary", "subjectId": "cas_1"}), 404, api.MsgNotFound)
			want(t, h.Do("POST", "/api/automations", h.Key("automations:write"), map[string]any{"kind": "sar_draft", "subjectId": "cas_1"}),
				422, api.MsgNotBound)
			want(t, h.Do("POST", "/api/automations", h.Key("automations:view"), map[string]any{"kind": "document_fields", "subjectId": "doc_1"}), 403, "")

			docs := map[string]string{
				"foreign":    document(t, h.Store, other.Org.ID, "invoice", true, docintel.StatusRequiresReview),
				"builtin":    document(t, h.Store, org, "passport", false, docintel.StatusRequiresReview),
				"processing": document(t, h.Store, org, "invoice", true, docintel.StatusProcessing),
				"found":      document(t, h.Store, org, "invoice", true, docintel.StatusExtracted, "number"),
				"none":       document(t, h.Store, org, "invoice", true, docintel.StatusRequiresReview),
			}
			run := func(doc, externalID string) *apitest.Response {
				body := map[string]any{"kind": "document_fields", "subjectId": docs[doc]}
				if externalID != "" {
					body["externalId"] = externalID
				}
				return h.Do("POST", "/api/automations", admin, body)
			}
			want(t, h.Do("POST", "/api/automations", admin, map[string]any{"kind": "document_fields", "subjectId": "doc_missing"}), 404, "not found")
			want(t, run("foreign", ""), 404, "not found")
			want(t, run("builtin", ""), 400, `not a custom document type`)
			want(t, run("processing", ""), 409, "state conflict: cannot transition processing → requires_review")
			want(t, run("found", ""), 400, "template rules found fields")
			if len(tc.starts) != 0 {
				t.Fatalf("refused requests started %d runs", len(tc.starts))
			}

			res = run("none", "ext-1")
			want(t, res, 202, "")
			d := res.Data()
			id, _ := d["id"].(string)
			if !strings.HasPrefix(id, "aut_") || d["status"] != "pending" || d["kind"] != "document_fields" || d["subjectId"] != docs["none"] ||
				d["machineWritten"] != true || d["requestedBy"] != h.Admin.ID || d["result"] != nil || d["externalId"] != "ext-1" {
				t.Fatalf("run = %v", d)
			}
			if len(tc.starts) != 1 || tc.starts[0].ID != id || tc.starts[0].TaskQueue != workflows.QueueAutomation ||
				tc.inputs[0] != (autowf.RunInput{RunID: id, OrgID: org, Kind: "document_fields", SubjectID: docs["none"], ExternalID: "ext-1", RequestedBy: h.Admin.ID}) {
				t.Fatalf("started %+v %+v", tc.starts, tc.inputs)
			}
			again := run("none", "ext-1")
			if again.Status != 202 || again.Data()["id"] != id || again.JSON["idempotent"] != true {
				t.Fatalf("replay = %d %s", again.Status, again.Body)
			}

			got := h.Do("GET", "/api/automations/"+id, admin, nil)
			if got.Status != 200 || got.Data()["id"] != id || got.Data()["exchanges"] == nil {
				t.Fatalf("get = %d %s", got.Status, got.Body)
			}
			want(t, h.Do("GET", "/api/automations/"+id, other.Key, nil), 404, "not found")
			list := h.Do("GET", "/api/automations?kind=document_fields&status=pending,running", admin, nil)
			if rows, _ := list.JSON["data"].([]any); list.Status != 200 || len(rows) != 1 {
				t.Fatalf("list = %d %s", list.Status, list.Body)
			}
			if rows, _ := h.Do("GET", "/api/automations", other.Key, nil).JSON["data"].([]any); len(rows) != 0 {
				t.Fatalf("another organisation lists %d runs", len(rows))
			}
			want(t, h.Do("GET", "/api/automations?kind=poem", admin, nil), 400, `"kind"`)

			// A start Temporal refuses leaves no run behind.
			tc.fail = errors.New("temporal down")
			want(t, run("none", ""), 503, api.MsgUnavailable)
			if rows, _ := h.Do("GET", "/api/automations", admin, nil).JSON["data"].([]any); len(rows) != 1 {
				t.Fatalf("%d runs after a failed start, want 1", len(rows))
			}
			want(t, h.Do("GET", "/api/executions/exe_missing/steps/stp_1/exchanges", admin, nil), 404, "not found")
		})
	}
}
