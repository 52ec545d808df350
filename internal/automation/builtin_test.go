package automation_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/automation/aitest"
)

// leakyCase is a case file in which credentials slipped into free text and fields.
func leakyCase() automation.CaseContext {
	return automation.CaseContext{
		CaseID:   "cas_01",
		Subject:  automation.CaseSubject{CustomerID: "cus_01", Name: "Ada Lovelace", Country: "GB"},
		OpenedAt: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC),
		Alerts: []automation.CaseAlert{{ID: "alr_01", Source: "fraud", Score: 0.91,
			Description: "5 transfers in 10 minutes; integration used " + apiKey, CreatedAt: time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)}},
		Screenings: []automation.CaseScreening{{ID: "scr_01", Status: "potential_match", Matches: []string{"ADA LOVELACE (PEP)"}}},
		Decisions:  []automation.CaseDecision{{ID: "dec_01", Outcome: "review", Reasons: []string{"velocity"}}},
		Documents: []automation.CaseDocument{{ID: "doc_01", Type: "passport", Status: "extracted",
			Fields: map[string]string{"number": "X1234567", "password": docPassword}}},
		Notes: []string{"receiver said their webhook secret is " + webhookSecret},
	}
}

// TestAutomationsKeepSecretsOutOfPrompts runs each built-in automation against the fake
// provider with secrets in its material and checks every byte the provider received.
func TestAutomationsKeepSecretsOutOfPrompts(t *testing.T) {
	docPrompt, err := automation.DocumentFieldsPrompt(automation.DocumentFieldsInput{
		DocumentID: "doc_02", Type: "invoice",
		Fields: []automation.FieldSpec{{Name: "invoice_number", Label: "Invoice No", Required: true}, {Name: "total"}},
		Text:   "ACME Ltd\nInvoice No INV-42\nTotal 1,200.00\nPDF password: " + docPassword + "\nAPI " + apiKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		kind   string
		prompt automation.Prompt
		answer string
	}{
		{automation.KindCaseSummary, automation.CaseSummaryPrompt(leakyCase()),
			`{"summary":"Velocity alert and a potential PEP match.","keyRisks":["PEP"],"recommendedAction":"escalate"}`},
		{automation.KindSARDraft, automation.SARDraftPrompt(leakyCase()),
			`{"narrative":"Between ...","suspiciousFacts":["5 transfers"],"missingEvidence":[]}`},
		{automation.KindDocumentFields, docPrompt, `{"invoice_number":"INV-42","total":"1,200.00"}`},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			srv, m := newModel(t, aitest.Reply{Content: c.answer})
			r := &automation.Runner{Model: m}
			out, err := r.Run(context.Background(), "org_a", c.prompt, docPassword)
			if err != nil {
				t.Fatal(err)
			}
			got := srv.Received()
			for _, s := range []string{apiKey, webhookSecret, docPassword} {
				if strings.Contains(got, s) {
					t.Fatalf("the model received %q", s)
				}
			}
			for _, msg := range out.Conversation {
				if strings.Contains(msg.Content, docPassword) || strings.Contains(msg.Content, apiKey) {
					t.Fatalf("the audit record holds a secret: %q", msg.Content)
				}
			}
			// The material itself still reached the model.
			if !strings.Contains(got, "Ada Lovelace") && !strings.Contains(got, "INV-42") {
				t.Fatalf("the prompt lost its material: %s", got)
			}
		})
	}
}

func TestCaseSummaryAnswerMustFitTheSchema(t *testing.T) {
	_, m := newModel(t,
		aitest.Reply{Content: `{"summary":"x","keyRisks":[],"recommendedAction":"approve_everything"}`},
		aitest.Reply{Content: `{"summary":"x","keyRisks":[],"recommendedAction":"monitor"}`})
	res, err := automation.Ask(context.Background(), m, automation.CaseSummaryPrompt(leakyCase()))
	if err != nil || res.Attempts != 2 {
		t.Fatalf("err %v attempts %d", err, res.Attempts)
	}
	var s automation.CaseSummary
	b, _ := json.Marshal(res.Answer)
	if err := json.Unmarshal(b, &s); err != nil || s.RecommendedAction != "monitor" {
		t.Fatalf("summary = %+v, %v", s, err)
	}
}

func TestDocumentFields(t *testing.T) {
	if _, err := automation.DocumentFieldsPrompt(automation.DocumentFieldsInput{Type: "invoice"}); err == nil {
		t.Fatal("a type without fields was accepted")
	}
	p, err := automation.DocumentFieldsPrompt(automation.DocumentFieldsInput{Type: "invoice",
		Fields: []automation.FieldSpec{{Name: "a"}, {Name: "b", Label: "B:"}}, Text: strings.Repeat("é", automation.MaxContextBytes)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Prompt, "cut at its size limit") || len(p.Prompt) > automation.MaxContextBytes+1000 || !json.Valid([]byte(p.Schema)) {
		t.Fatalf("prompt of %d bytes, schema %s", len(p.Prompt), p.Schema)
	}
	s, err := automation.CompileSchema(p.Schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(map[string]any{"a": "x", "b": nil}); err != nil {
		t.Fatalf("a null field was refused: %v", err)
	}
	if err := s.Validate(map[string]any{"a": "x"}); err == nil {
		t.Fatal("a missing field was accepted")
	}
	if err := s.Validate(map[string]any{"a": "x", "b": nil, "c": "invented"}); err == nil {
		t.Fatal("an extra field was accepted")
	}
	got := automation.DocumentFields(map[string]any{"a": " INV-1 ", "b": nil, "c": "  "})
	if len(got) != 1 || got["a"] != "INV-1" {
		t.Fatalf("fields = %v", got)
	}
}
