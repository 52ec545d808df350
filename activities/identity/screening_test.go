package identity_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	idvacts "github.com/svcplatform/svc/activities/identity"
	"github.com/svcplatform/svc/api/apitest"
	idv "github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/netguard"
	"github.com/svcplatform/svc/store"
	idvwf "github.com/svcplatform/svc/workflows/identity"
)

// screeningClient is a ScreeningClient for the harness's API, through the SSRF guard that
// lets loopback through, with key as every organisation's service key.
func screeningClient(t *testing.T, h *apitest.Harness, key string) *idvacts.ScreeningClient {
	t.Helper()
	g, err := netguard.New(netguard.Config{AllowCIDRs: []string{"127.0.0.0/8", "::1/128"}, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return &idvacts.ScreeningClient{BaseURL: h.URL, HTTP: g.Client(),
		Keys: idvacts.ServiceKeysFunc(func(context.Context, string) (string, error) { return key, nil })}
}

// watchList gives the harness organisation a screening list of one person and returns an
// identity service principal key that may screen.
func watchList(t *testing.T, h *apitest.Harness, name, birthDate string) (key, keyID string) {
	t.Helper()
	list := h.Do("POST", "/api/screening-lists", h.AdminKey, map[string]any{"name": "watch list", "entries": []map[string]any{
		{"id": "e1", "type": "person", "name": name, "birthDates": []string{birthDate}},
	}})
	if list.Status != http.StatusCreated {
		t.Fatalf("list = %d %s", list.Status, list.Body)
	}
	return h.KeyWith(apitest.KeySpec{Scopes: []string{"screenings:write"}, ServiceSlug: idvacts.ServiceSlug})
}

// TestScreeningClientCallsTheScreeningProduct: the identity product screens a person through
// the real screening API with a service principal key; the screening is recorded once per
// attempt, and the audit log names the calling service.
func TestScreeningClientCallsTheScreeningProduct(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	key, keyID := watchList(t, h, "Sergei Ivanovich Petrov", "1970-03-04")
	sc := screeningClient(t, h, key)
	ctx := context.Background()
	req := idv.ScreeningRequest{OrgID: h.Org.ID, VerificationID: "idv_1", AttemptNumber: 1, FullName: "Petrov Sergei", BirthDate: "1970-03-04"}

	hit, err := sc.Screen(ctx, req)
	if err != nil || hit.Matches != 1 || !strings.HasPrefix(hit.ScreeningID, "scr_") {
		t.Fatalf("listed person = %+v %v", hit, err)
	}
	again, err := sc.Screen(ctx, req)
	if err != nil || again.ScreeningID != hit.ScreeningID {
		t.Errorf("a retried attempt screened again: %+v %v (first %s)", again, err, hit.ScreeningID)
	}
	clean, err := sc.Screen(ctx, idv.ScreeningRequest{OrgID: h.Org.ID, VerificationID: "idv_2", AttemptNumber: 1, FullName: "Siti Rahayu", BirthDate: "1990-06-05"})
	if err != nil || clean.Matches != 0 || clean.ScreeningID == "" || clean.ScreeningID == hit.ScreeningID {
		t.Errorf("unlisted person = %+v %v", clean, err)
	}

	logs := h.Do("GET", "/api/audit-logs?limit=200", h.AdminKey, nil)
	byService := 0
	for _, row := range logs.JSON["rows"].([]any) {
		m := row.(map[string]any)
		if m["apiKeyId"] == keyID && m["callerServiceSlug"] == idvacts.ServiceSlug {
			byService++
		}
	}
	if byService == 0 {
		t.Errorf("no audit row of the screening names the calling service: %s", logs.Body)
	}

	// A key without the scope, or no key at all: an error, never a clean result.
	weak, _ := h.KeyWith(apitest.KeySpec{Scopes: []string{"screenings:view"}, ServiceSlug: idvacts.ServiceSlug})
	if out, err := screeningClient(t, h, weak).Screen(ctx, req); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("screening with a key lacking the scope = %+v %v", out, err)
	}
	noKey := &idvacts.ScreeningClient{BaseURL: h.URL, HTTP: http.DefaultClient,
		Keys: idvacts.ServiceKeysFunc(func(context.Context, string) (string, error) { return "", errors.New("not connected") })}
	if _, err := noKey.Screen(ctx, req); err == nil {
		t.Error("screening without a service key succeeded")
	}
}

// TestEvaluateScreensWhenThePolicyRequiresIt: a document that passes every other check goes
// to review with screening_match when the person is on a list, and verifies when not.
func TestEvaluateScreensWhenThePolicyRequiresIt(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	key, _ := watchList(t, h, "Siti Rahayu", "1990-06-05")
	ctx := context.Background()
	yes := true
	doc := idv.Document{Readable: true, Type: "ktp", MeanConfidence: 0.95, Words: 60, Fields: map[string]idv.DocumentField{
		"name":        {Value: "SITI RAHAYU", Confidence: 0.95},
		"birth_date":  {Value: "1990-06-05", Confidence: 0.99, Valid: &yes},
		"nik":         {Value: "3174054506900003", Confidence: 0.99, Valid: &yes},
		"valid_until": {Value: "SEUMUR HIDUP", Confidence: 0.9},
	}}
	reg := prometheus.NewRegistry()
	acts := &idvacts.Activities{Store: h.Store, Checks: idv.DefaultChecks(nil), Screener: screeningClient(t, h, key), Metrics: idvacts.NewMetrics(reg)}
	evaluate := func(name string, screening bool) idvwf.EvaluateResult {
		t.Helper()
		v := &store.IdentityVerification{ID: ids.New(ids.IdentityVerification), OrgID: h.Org.ID,
			Claimed:   idv.Claimed{FullName: name, BirthDate: "1990-06-05"},
			Policy:    idv.Policy{DocumentTypes: []string{"ktp"}, RequireScreening: screening},
			ExpiresAt: time.Now().Add(time.Hour)}
		if err := h.Store.Identity.CreateVerification(ctx, v); err != nil {
			t.Fatal(err)
		}
		a := &store.IdentityAttempt{ID: ids.New(ids.IdentityAttempt), OrgID: h.Org.ID, VerificationID: v.ID, FrontKey: "k"}
		if err := h.Store.Identity.SubmitAttempt(ctx, a, time.Now()); err != nil {
			t.Fatal(err)
		}
		d := doc
		d.Fields = map[string]idv.DocumentField{}
		for k, f := range doc.Fields {
			d.Fields[k] = f
		}
		d.Fields["name"] = idv.DocumentField{Value: strings.ToUpper(name), Confidence: 0.95}
		if err := h.Store.Identity.SaveDocument(ctx, h.Org.ID, a.ID, d); err != nil {
			t.Fatal(err)
		}
		res, err := acts.EvaluateIdentityAttempt(ctx, idvwf.EvaluateInput{Ref: idvwf.AttemptRef{OrgID: h.Org.ID, VerificationID: v.ID,
			AttemptID: a.ID, Number: 1}, Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if r := evaluate("Siti Rahayu", true); r.Outcome.Status != idv.StatusReview || len(r.Outcome.Reasons) != 1 || r.Outcome.Reasons[0] != idv.ReasonScreeningMatch ||
		!strings.HasPrefix(r.Checks[len(r.Checks)-1].ScreeningID, "scr_") {
		t.Errorf("listed person = %+v %+v", r.Outcome, r.Checks[len(r.Checks)-1])
	}
	if r := evaluate("Dewi Lestari", true); r.Outcome.Status != idv.StatusVerified {
		t.Errorf("unlisted person = %+v %+v", r.Outcome, r.Checks)
	}
	if r := evaluate("Siti Rahayu", false); r.Outcome.Status != idv.StatusVerified || r.Checks[len(r.Checks)-1].Status != idv.NotApplicable {
		t.Errorf("screening not required = %+v", r.Outcome)
	}
	// The metrics count the three decided attempts and the one failed check, by reason.
	if n, err := testutil.GatherAndCount(reg, "svc_identity_attempts_total"); err != nil || n != 2 {
		t.Errorf("attempt series %d %v, want 2 (verified, review)", n, err)
	}
	want := `# HELP svc_identity_check_failures_total Failed identity checks, by check and reason code.
# TYPE svc_identity_check_failures_total counter
svc_identity_check_failures_total{check="screening",reason="screening_match"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "svc_identity_check_failures_total"); err != nil {
		t.Error(err)
	}
}
