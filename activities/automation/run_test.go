package automation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/automation/aitest"
	"github.com/svcplatform/svc/internal/blobs"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	autowf "github.com/svcplatform/svc/workflows/automation"
)

// Credentials shaped like svc's own, planted in each automation's material.
const (
	plantedKey      = "svc_sk_live_PLANTEDKEYPLANTEDKEYPLANTED234"
	plantedWhsec    = "svc_whsec_cGxhbnRlZC13ZWJob29rLXNlY3JldA=="
	plantedPassword = "Tr0ub4dor&3"
)

// caseBook is the cases product's side of the seam as these tests need it: cases by id,
// and what the automations wrote on them. The cases product implements automation.Cases
// on its store; this stands in for it until it lands.
type caseBook struct {
	mu        sync.Mutex
	cases     map[string]automation.CaseContext // by org/case id
	summaries map[string][]automation.MachineSummary
	drafts    map[string][]automation.MachineSARDraft
}

func (b *caseBook) CaseContext(_ context.Context, orgID, caseID string) (automation.CaseContext, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := b.cases[orgID+"/"+caseID]
	if !ok {
		return automation.CaseContext{}, automation.ErrCaseNotFound
	}
	return c, nil
}

func (b *caseBook) SaveMachineSummary(_ context.Context, orgID, caseID string, s automation.MachineSummary) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.cases[orgID+"/"+caseID]; !ok {
		return automation.ErrCaseNotFound
	}
	b.summaries[caseID] = append(b.summaries[caseID], s)
	return nil
}

func (b *caseBook) SaveSARDraft(_ context.Context, orgID, caseID string, d automation.MachineSARDraft) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.cases[orgID+"/"+caseID]; !ok {
		return automation.ErrCaseNotFound
	}
	b.drafts[caseID] = append(b.drafts[caseID], d)
	return nil
}

// leakyCase is a case whose alerts and notes carry credentials someone pasted.
func leakyCase(id string) automation.CaseContext {
	return automation.CaseContext{
		CaseID: id, Subject: automation.CaseSubject{CustomerID: "cus_7", Name: "Grace Hopper", Country: "US"},
		OpenedAt: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC),
		Alerts: []automation.CaseAlert{{ID: "alr_1", Source: "fraud", Score: 0.9, Description: "9 payouts in an hour via key " + plantedKey,
			CreatedAt: time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)}},
		Documents: []automation.CaseDocument{{ID: "doc_9", Type: "bank_statement", Status: "extracted",
			Fields: map[string]string{"account": "DE02 1203", "pdfPassword": plantedPassword}}},
		Notes: []string{"integration webhook secret " + plantedWhsec, "statement password: " + plantedPassword},
	}
}

// assertNoSecrets fails when any planted credential reached the model or the audit record.
func assertNoSecrets(t *testing.T, s *store.Store, srv *aitest.Server, orgID, runID string) {
	t.Helper()
	got := srv.Received()
	xs, err := s.Automation.Exchanges(context.Background(), orgID, runID)
	if err != nil || len(xs) == 0 {
		t.Fatalf("exchanges = %v, %v", xs, err)
	}
	audit, _ := json.Marshal(xs)
	for _, secret := range []string{plantedKey, plantedWhsec, plantedPassword} {
		if strings.Contains(got, secret) {
			t.Errorf("the model received %q", secret)
		}
		if bytes.Contains(audit, []byte(secret)) {
			t.Errorf("the audit record holds %q", secret)
		}
	}
}

func startRun(t *testing.T, s *store.Store, in autowf.RunInput) {
	t.Helper()
	if err := s.Automation.CreateRun(context.Background(), &store.AutomationRun{ID: in.RunID, OrgID: in.OrgID, Kind: in.Kind,
		SubjectID: in.SubjectID, CreatedBy: in.RequestedBy}); err != nil {
		t.Fatal(err)
	}
}

func TestRunCaseSummaryIsMachineWrittenOnTheCase(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		org := ids.New(ids.Organization)
		book := &caseBook{cases: map[string]automation.CaseContext{org + "/cas_1": leakyCase("cas_1")},
			summaries: map[string][]automation.MachineSummary{}, drafts: map[string][]automation.MachineSARDraft{}}
		a, srv, _, _ := newActivities(t, s, 0, automation.AuditKeep,
			aitest.Reply{Content: `{"summary":"Nine payouts in an hour.","keyRisks":["velocity"],"recommendedAction":"escalate"}`})
		a.Cases = book
		in := autowf.RunInput{RunID: ids.New(ids.Automation), OrgID: org, Kind: automation.KindCaseSummary, SubjectID: "cas_1"}
		startRun(t, s, in)
		out, err := a.RunAutomation(context.Background(), in)
		if err != nil || out.Model != "test-model" || out.ResultStatus != "" {
			t.Fatalf("out %+v, err %v", out, err)
		}
		got := book.summaries["cas_1"]
		if len(got) != 1 || got[0].Summary != "Nine payouts in an hour." || got[0].RecommendedAction != "escalate" ||
			got[0].AutomationID != in.RunID || got[0].Model != "test-model" || got[0].WrittenAt.IsZero() {
			t.Fatalf("summary on the case = %+v", got)
		}
		r, _ := s.Automation.GetRun(context.Background(), org, in.RunID)
		if res, _ := r.Result.(map[string]any); r.Status != "running" || res["recommendedAction"] != "escalate" {
			t.Fatalf("run = %+v", r)
		}
		if !strings.Contains(srv.Received(), "Grace Hopper") {
			t.Fatal("the case file did not reach the model")
		}
		assertNoSecrets(t, s, srv, org, in.RunID)
	})
}

func TestRunSARDraftNamesTheRequesterAsDrafter(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		org := ids.New(ids.Organization)
		book := &caseBook{cases: map[string]automation.CaseContext{org + "/cas_2": leakyCase("cas_2")},
			summaries: map[string][]automation.MachineSummary{}, drafts: map[string][]automation.MachineSARDraft{}}
		a, srv, _, _ := newActivities(t, s, 0, automation.AuditKeep,
			aitest.Reply{Content: `{"narrative":"On 2 November 2026 the subject received nine payouts.","suspiciousFacts":["9 payouts"]}`}, // schema: missingEvidence required
			aitest.Reply{Content: `{"narrative":"On 2 November 2026 the subject received nine payouts.","suspiciousFacts":["9 payouts"],"missingEvidence":["source of funds"]}`})
		a.Cases = book
		in := autowf.RunInput{RunID: ids.New(ids.Automation), OrgID: org, Kind: automation.KindSARDraft, SubjectID: "cas_2", RequestedBy: "usr_drafter"}
		startRun(t, s, in)
		if _, err := a.RunAutomation(context.Background(), in); err != nil {
			t.Fatal(err)
		}
		got := book.drafts["cas_2"]
		if len(got) != 1 || got[0].DraftedBy != "usr_drafter" || got[0].AutomationID != in.RunID ||
			!strings.HasPrefix(got[0].Narrative, "On 2 November") || len(got[0].MissingEvidence) != 1 {
			t.Fatalf("draft on the case = %+v", got)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Fatalf("%d model calls, want 2 (one corrective retry)", n)
		}
		assertNoSecrets(t, s, srv, org, in.RunID)
	})
}

func TestRunCaseAutomationFailures(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		org := ids.New(ids.Organization)
		a, srv, _, _ := newActivities(t, s, 0, automation.AuditKeep)
		in := autowf.RunInput{RunID: ids.New(ids.Automation), OrgID: org, Kind: automation.KindCaseSummary, SubjectID: "cas_3"}
		startRun(t, s, in)
		wantFinal := func(err error, msg string) {
			t.Helper()
			var ae *temporal.ApplicationError
			if !errors.As(err, &ae) || !ae.NonRetryable() || ae.Type() != automation.ErrTypeFinal || !strings.Contains(ae.Message(), msg) {
				t.Fatalf("err = %v, want a final %q", err, msg)
			}
		}
		_, err := a.RunAutomation(context.Background(), in) // no cases product
		wantFinal(err, "need the cases product")
		a.Cases = &caseBook{cases: map[string]automation.CaseContext{"org_other/cas_3": leakyCase("cas_3")}}
		_, err = a.RunAutomation(context.Background(), in) // another organisation's case
		wantFinal(err, "case cas_3 not found")
		if n := len(srv.Requests()); n != 0 {
			t.Fatalf("%d model calls for a run without material", n)
		}
	})
}

// customDocument stores a finished document of the organisation's custom type "invoice"
// whose template rules found none of its fields, with its text in bl.
func customDocument(t *testing.T, s *store.Store, bl blobs.Store, orgID, text string) *store.Document {
	t.Helper()
	ctx := context.Background()
	tpl := &store.Template{ID: ids.New(ids.Template), OrgID: orgID, Type: "invoice", MustInclude: []string{"invoice"},
		Fields: []docintel.TemplateField{{Name: "invoice_number", Label: "Invoice No", Required: true}, {Name: "total", Label: "Total"}}}
	if err := s.Documents.CreateTemplate(ctx, tpl); err != nil {
		t.Fatal(err)
	}
	var tr docintel.TextResult
	for _, line := range strings.Split(text, "\n") {
		var l docintel.Line
		for _, w := range strings.Fields(line) {
			l.Words = append(l.Words, docintel.Word{Text: w, Conf: 0.9})
		}
		tr.Lines = append(tr.Lines, l)
	}
	raw, _ := json.Marshal(tr)
	b, err := blobs.Put(ctx, bl, bytes.NewReader(raw), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	d := &store.Document{ID: ids.New(ids.Document), OrgID: orgID, Type: "invoice", Filename: "inv.pdf", Format: "pdf", Size: 10,
		SHA256: b.SHA256, BlobKey: b.Key, CreatedAt: time.Now().UTC()}
	if err := s.Documents.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := s.Documents.Update(ctx, orgID, d.ID, store.DocumentUpdate{Status: docintel.StatusProcessing, TextKey: b.Key, TemplateID: tpl.ID}); err != nil {
		t.Fatal(err)
	}
	x := &store.Extraction{ID: ids.New(ids.Extraction), OrgID: orgID, DocumentID: d.ID, Type: "invoice", TemplateID: tpl.ID, Source: "text_layer",
		Status: string(docintel.StatusRequiresReview), Fields: map[string]store.ExtractedField{"invoice_number": {Required: true}, "total": {}},
		CreatedAt: time.Now().UTC()}
	if err := s.Documents.Finish(ctx, x, time.Now()); err != nil {
		t.Fatal(err)
	}
	d, err = s.Documents.Get(ctx, orgID, d.ID)
	if err != nil || d.Status != string(docintel.StatusRequiresReview) {
		t.Fatalf("document %+v, %v", d, err)
	}
	return d
}

func TestRunDocumentFieldsAlwaysRequiresReview(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := ids.New(ids.Organization)
		bl, err := blobs.NewLocal(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		doc := customDocument(t, s, bl, org, "ACME Ltd invoice\nNo. INV-42 dated 3 Nov\nAmount due 1,200.00 EUR\nPDF password: "+plantedPassword+
			"\nPaid via API "+plantedKey+"\nwebhook "+plantedWhsec)
		answer := aitest.Reply{Content: `{"invoice_number":"INV-42","total":"1,200.00 EUR"}`}
		a, srv, _, _ := newActivities(t, s, 0, automation.AuditKeep, answer, answer)
		a.Blobs = bl
		in := autowf.RunInput{RunID: ids.New(ids.Automation), OrgID: org, Kind: automation.KindDocumentFields, SubjectID: doc.ID}
		startRun(t, s, in)
		out, err := a.RunAutomation(ctx, in)
		if err != nil || out.ResultStatus != string(docintel.StatusRequiresReview) {
			t.Fatalf("out %+v, err %v", out, err)
		}
		// A retried activity stores the extraction once.
		if _, err := a.RunAutomation(ctx, in); err != nil {
			t.Fatalf("retry: %v", err)
		}
		got, _ := s.Documents.Get(ctx, org, doc.ID)
		x, err := s.Documents.GetExtraction(ctx, org, got.LatestExtractionID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != string(docintel.StatusRequiresReview) || x.Status != string(docintel.StatusRequiresReview) || x.Source != store.SourceModel ||
			x.PreviousExtractionID != doc.LatestExtractionID || x.Fields["invoice_number"].Value != "INV-42" || !x.Fields["total"].Found ||
			len(x.Flags) != 1 || x.Flags[0] != automation.ReviewFlag {
			t.Fatalf("document %s, extraction %+v", got.Status, x)
		}
		if !strings.Contains(srv.Received(), "INV-42") {
			t.Fatal("the document text did not reach the model")
		}
		assertNoSecrets(t, s, srv, org, in.RunID)
	})
}
