package api_test

import (
	"context"
	"testing"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
)

// TestCasesAndSARFilingsValidation: the cases product's answers that need no workflow: bad
// bodies (400 with every field named), alerts of another organisation (404) or already in a
// case (409), and the SAR filing's four-eyes submit held by the store's conditional write.
func TestCasesAndSARFilingsValidation(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	ctx := context.Background()

	fe := fieldErrors(t, h.Do("POST", "/api/cases", h.AdminKey, map[string]any{"priority": "urgent", "alertIds": []string{"dec_1"}, "dueAt": "tomorrow"}))
	for _, f := range []string{"title", "priority", "alertIds", "dueAt"} {
		if fe[f] == nil {
			t.Errorf("no field error for %s: %v", f, fe)
		}
	}
	other := h.NewTenant("other")
	foreign, _, err := h.Store.Alerts.Raise(ctx, &store.Alert{OrgID: other.Org.ID, Source: "fraud", SourceRef: "dec_x", CustomerID: "cus_x"})
	if err != nil {
		t.Fatal(err)
	}
	wantExactError(t, h.Do("POST", "/api/cases", h.AdminKey, map[string]any{"title": "t", "alertIds": []string{foreign.ID}}), 404, api.MsgNotFound)
	own, _, err := h.Store.Alerts.Raise(ctx, &store.Alert{OrgID: h.Org.ID, Source: "screening", SourceRef: "scr_1", Subject: "e1", CustomerID: "cus_1"})
	if err != nil {
		t.Fatal(err)
	}
	r := h.Do("POST", "/api/cases", h.AdminKey, map[string]any{"title": "Possible match", "alertIds": []string{own.ID}, "priority": "high"})
	wantStatus(t, r, 201)
	caseID := str(r.Data(), "id")
	if str(r.Data(), "status") != "open" || str(r.Data(), "createdBy") != h.Admin.ID {
		t.Errorf("new case = %s", r.Body)
	}
	wantExactError(t, h.Do("POST", "/api/cases", h.AdminKey, map[string]any{"title": "again", "alertIds": []string{own.ID}}), 409, "alert already in a case")
	wantStatus(t, h.Do("GET", "/api/alerts?status=assigned&caseId="+caseID, h.AdminKey, nil), 200)
	fieldErrors(t, h.Do("GET", "/api/alerts?source=mail", h.AdminKey, nil))
	fieldErrors(t, h.Do("POST", "/api/cases/"+caseID+"/propose-close", h.AdminKey, map[string]any{"outcome": "closed"}))
	fieldErrors(t, h.Do("PATCH", "/api/cases/"+caseID, h.AdminKey, map[string]any{"evidence": []any{map[string]any{"id": "usr_1"}}}))
	wantStatus(t, h.Do("POST", "/api/cases/"+caseID+"/comments", h.AdminKey, map[string]any{"body": "checked the address"}), 201)

	// SAR filings: drafted by one user, submitted by another, never by the drafter.
	fe = fieldErrors(t, h.Do("POST", "/api/sar-filings", h.AdminKey, map[string]any{"caseId": caseID, "activityFrom": "2026-02-01",
		"activityTo": "2026-01-01", "amount": -1, "currency": "eur", "subjects": []string{"x"}}))
	for _, f := range []string{"activityTo", "amount", "currency", "narrative", "subjects"} {
		if fe[f] == nil {
			t.Errorf("no field error for %s: %v", f, fe)
		}
	}
	body := map[string]any{"caseId": caseID, "activityFrom": "2026-01-01", "activityTo": "2026-01-31", "amount": 9900, "narrative": "cash"}
	unbound := h.Key("sar-filings:write")
	wantExactError(t, h.Do("POST", "/api/sar-filings", unbound, body), 422, api.MsgNotBound)
	d := h.Do("POST", "/api/sar-filings", h.AdminKey, body)
	wantStatus(t, d, 201)
	sarID := str(d.Data(), "id")
	wantExactError(t, h.Do("POST", "/api/sar-filings/"+sarID+"/submit", h.AdminKey, map[string]any{}), 422, "four-eyes violation: drafter cannot submit")
	wantStatus(t, h.Do("PATCH", "/api/sar-filings/"+sarID, h.AdminKey, map[string]any{"narrative": "cash, structured"}), 200)
	second := &store.User{ID: ids.New(ids.User), OrgID: h.Org.ID, Email: "second@example.com", Name: "second", Role: "reviewer"}
	if err := h.Store.Users.Create(ctx, second); err != nil {
		t.Fatal(err)
	}
	reviewerKey, _ := h.KeyWith(apitest.KeySpec{Scopes: []string{"sar-filings:write"}, ActAsUserID: second.ID})
	s := h.Do("POST", "/api/sar-filings/"+sarID+"/submit", reviewerKey, map[string]any{})
	wantStatus(t, s, 202)
	if str(s.Data(), "submittedById") != second.ID || str(s.Data(), "filedById") != h.Admin.ID {
		t.Errorf("submitted = %s", s.Body)
	}
	wantExactError(t, h.Do("POST", "/api/sar-filings/"+sarID+"/submit", reviewerKey, map[string]any{}), 409, "state conflict: cannot transition submitted → submitted")
	wantStatus(t, h.Do("PATCH", "/api/sar-filings/"+sarID, h.AdminKey, map[string]any{"narrative": "late"}), 409)

	// The submission is audit-logged with the effective user and the key (SPEC 5.5).
	logs := h.Do("GET", "/api/audit-logs?q="+sarID, h.AdminKey, nil)
	wantStatus(t, logs, 200)
	submitted := false
	for _, row := range logs.JSON["rows"].([]any) {
		e := row.(map[string]any)
		if str(e, "action") == "POST /api/sar-filings/:id/submit" && str(e, "userId") == second.ID && str(e, "apiKeyId") != "" {
			submitted = true
		}
	}
	if !submitted {
		t.Errorf("no audit entry of the submit by %s with its key: %s", second.ID, logs.Body)
	}

	// A machine draft (the automation product's) carries no amount until a person fills it
	// in: submitting it unedited is refused naming what is missing, then accepted once edited.
	machine := ids.New(ids.Automation)
	if err := h.Store.Cases.SaveSARDraft(ctx, h.Org.ID, caseID, automation.MachineSARDraft{SARDraft: automation.SARDraft{Narrative: "drafted"},
		MachineWritten: automation.MachineWritten{AutomationID: machine}, DraftedBy: h.Admin.ID}); err != nil {
		t.Fatal(err)
	}
	draftID := ids.Rebrand(ids.SARFiling, machine)
	refused := h.Do("POST", "/api/sar-filings/"+draftID+"/submit", reviewerKey, map[string]any{})
	wantStatus(t, refused, 422)
	if fe := refused.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any); fe["amount"] == nil || fe["currency"] == nil || fe["narrative"] != nil || refused.JSON["error"] != "sar filing incomplete" {
		t.Errorf("incomplete draft's field errors = %s", refused.Body)
	}
	wantStatus(t, h.Do("PATCH", "/api/sar-filings/"+draftID, h.AdminKey, map[string]any{"amount": 1200, "currency": "EUR"}), 200)
	wantStatus(t, h.Do("POST", "/api/sar-filings/"+draftID+"/submit", reviewerKey, map[string]any{}), 202)

	// A machine-written summary is shown with the run that wrote it.
	if err := h.Store.Cases.SetCaseSummary(ctx, h.Org.ID, caseID, "two screening hits, one reviewed", machine); err != nil {
		t.Fatal(err)
	}
	got := h.Do("GET", "/api/cases/"+caseID, h.AdminKey, nil)
	if str(got.Data(), "summary") != "two screening hits, one reviewed" || str(got.Data(), "summaryBy") != machine {
		t.Errorf("case with a machine summary = %s", got.Body)
	}
}
