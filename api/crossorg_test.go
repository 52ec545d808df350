package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
)

// crossOrgFixture makes a resource for the cross-organisation test.
type crossOrgFixture struct {
	// create makes a resource in owner's organisation and returns its id.
	create func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string
	// bodies are bodies that would be valid for the owner, by "METHOD /path/:id…" (default {}).
	bodies map[string]any
}

// crossOrgFixtures has one entry per resource path that takes an id, keyed by the path up to and
// including its first parameter. A route with an :id and no fixture fails the test: add one here.
var crossOrgFixtures = map[string]crossOrgFixture{
	"/api/cases/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			return newCase(t, h, owner.Org.ID).ID
		},
		bodies: map[string]any{
			"PATCH /api/cases/:id":              map[string]any{"title": "renamed", "priority": "high"},
			"POST /api/cases/:id/comments":      map[string]any{"body": "intruder"},
			"POST /api/cases/:id/assign":        map[string]any{"assigneeId": "usr_00000000000000000000000000"},
			"POST /api/cases/:id/propose-close": map[string]any{"outcome": "false_positive", "rationale": "nothing"},
		},
	},
	"/api/sar-filings/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			c := newCase(t, h, owner.Org.ID)
			f := &store.SARFiling{ID: ids.New(ids.SARFiling), OrgID: owner.Org.ID, CaseID: c.ID, ActivityFrom: "2026-01-01", ActivityTo: "2026-01-31",
				Amount: 100, Currency: "EUR", Narrative: "structuring", FiledByID: owner.User.ID}
			if err := h.Store.Cases.CreateSAR(context.Background(), f); err != nil {
				t.Fatal(err)
			}
			return f.ID
		},
		bodies: map[string]any{"PATCH /api/sar-filings/:id": map[string]any{"narrative": "intruder"}},
	},
	"/api/api-keys/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			_, id := h.KeyWith(apitest.KeySpec{OrgID: owner.Org.ID, Scopes: []string{"read"}})
			return id
		},
		bodies: map[string]any{"PATCH /api/api-keys/:id": map[string]any{"name": "renamed", "scopes": []string{"write"}}},
	},
	"/api/customers/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			c := &store.Customer{ID: ids.New(ids.Customer), OrgID: owner.Org.ID, Type: "person", FullName: "Siti Rahayu", Status: "active"}
			if err := h.Store.Customers.Create(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			return c.ID
		},
		bodies: map[string]any{"PATCH /api/customers/:id": map[string]any{"fullName": "renamed", "status": "inactive", "monitoring": true}},
	},
	"/api/users/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string { return owner.User.ID },
		bodies: map[string]any{"PATCH /api/users/:id": map[string]any{"name": "renamed", "disabled": true, "role": "viewer"}},
	},
	"/api/webhooks/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			box, err := secrets.NewBox(bytes.Repeat([]byte{1}, secrets.KeySize))
			if err != nil {
				t.Fatal(err)
			}
			w, _, err := h.Store.Webhooks.Create(context.Background(), box, owner.Org.ID, "https://example.com/hook", []string{"*"}, true)
			if err != nil {
				t.Fatal(err)
			}
			return w.ID
		},
		bodies: map[string]any{"PATCH /api/webhooks/:id": map[string]any{"url": "https://example.org/x", "events": []string{"document.failed"}, "active": false}},
	},
	"/api/workflows/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			return newWorkflow(t, h, owner.Org.ID).ID
		},
		bodies: map[string]any{
			"POST /api/workflows/:id/versions":   map[string]any{"definition": json.RawMessage(linearDefinition)},
			"POST /api/workflows/:id/executions": map[string]any{"inputs": map[string]any{"amount": 5}},
		},
	},
	"/api/identity/verifications/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			v := &store.IdentityVerification{ID: ids.New(ids.IdentityVerification), OrgID: owner.Org.ID,
				Claimed: identity.Claimed{FullName: "Siti Rahayu", BirthDate: "1990-06-05"},
				Policy:  identity.Policy{DocumentTypes: []string{"ktp"}}, ExpiresAt: time.Now().Add(time.Hour)}
			if err := h.Store.Identity.CreateVerification(context.Background(), v); err != nil {
				t.Fatal(err)
			}
			return v.ID
		},
		bodies: map[string]any{"POST /api/identity/verifications/:id/review": map[string]any{"decision": "approve"}},
	},
	"/api/identity/attempts/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			return newIdentityAttempt(t, h, owner.Org.ID, []byte("\x89PNG\r\n\x1a\n")).ID
		},
	},
	"/api/executions/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			return newExecution(t, h, owner.Org.ID, orchestration.ExecutionRunning).ID
		},
		bodies: map[string]any{"POST /api/executions/:id/cancel": map[string]any{"reason": "mine now"}},
	},
	"/api/approvals/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			return newApproval(t, h, newExecution(t, h, owner.Org.ID, orchestration.ExecutionRunning), "role:admin").ID
		},
		bodies: map[string]any{"POST /api/approvals/:id/approve": map[string]any{"comment": "ok"}},
	},
	"/api/documents/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			return newDocument(t, h, owner.Org.ID, docintel.StatusRequiresReview).ID
		},
		bodies: map[string]any{
			"POST /api/documents/:id/password":    map[string]any{"password": "guess"},
			"POST /api/documents/:id/corrections": map[string]any{"fields": map[string]any{"name": "BUDI"}},
		},
	},
	"/api/templates/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			return newTemplate(t, h, owner.Org.ID).ID
		},
	},
	"/api/screenings/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			r := &store.ScreeningRecord{ID: ids.New(ids.Screening), OrgID: owner.Org.ID, FullName: "John Smith", Threshold: 0.8,
				Status: "clear", CreatedAt: time.Now()}
			if err := h.Store.Screening.CreateScreening(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			return r.ID
		},
	},
	"/api/decisions/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			req, err := fraud.ParseEvaluate([]byte(`{"event": {"type": "login", "customerId": "c"}}`), fraud.KindEvent, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			d, err := h.Store.Fraud.Evaluate(context.Background(), store.FraudEvaluation{OrgID: owner.Org.ID, Request: req, Persist: true})
			if err != nil {
				t.Fatal(err)
			}
			return d.Decision.ID
		},
		bodies: map[string]any{"POST /api/decisions/:id/review": map[string]any{"decision": "approve"}},
	},
	"/api/rulesets/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			ctx := context.Background()
			rs, err := h.Store.Fraud.CreateRuleSet(ctx, owner.Org.ID, "Logins", "login_"+strings.ToLower(ids.New(ids.RuleSet)[4:]), owner.User.ID)
			if err != nil {
				t.Fatal(err)
			}
			spec := `{"rules": [{"name": "a", "expression": "true", "scoreModifier": 1, "reasonCode": "A"}], "thresholds": {"review": 1}}`
			if _, err := h.Store.Fraud.AddRuleSetVersion(ctx, owner.Org.ID, rs.ID, spec, owner.User.ID); err != nil {
				t.Fatal(err)
			}
			return rs.ID
		},
		bodies: map[string]any{
			"POST /api/rulesets/:id/versions":  map[string]any{"rules": []any{map[string]any{"name": "a", "expression": "true", "scoreModifier": 1, "reasonCode": "A"}}, "thresholds": map[string]any{"review": 1}},
			"POST /api/rulesets/:id/backtests": map[string]any{"version": 1, "from": "2026-01-01T00:00:00Z", "to": "2026-01-02T00:00:00Z"},
		},
	},
	"/api/backtests/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			bt := &store.FraudBacktest{ID: ids.New(ids.Backtest), OrgID: owner.Org.ID, RuleSetID: "rul_x", Version: 1, Status: store.BacktestRunning}
			if err := h.Store.Fraud.CreateBacktest(context.Background(), bt, "login"); err != nil {
				t.Fatal(err)
			}
			return bt.ID
		},
	},
	"/api/screening-lists/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			return newScreeningList(t, h, owner.Key)
		},
		bodies: map[string]any{"PUT /api/screening-lists/:id/entries/:entryId": map[string]any{"type": "person", "name": "Intruder Name"}},
	},
	"/api/automations/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			r := &store.AutomationRun{ID: ids.New(ids.Automation), OrgID: owner.Org.ID, Kind: "case_summary", SubjectID: "cas_00000000000000000000000000", Status: "completed"}
			if err := h.Store.Automation.CreateRun(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			return r.ID
		},
	},
	"/api/analyses/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			a := &store.Analysis{ID: ids.New(ids.Analysis), OrgID: owner.Org.ID, Status: "password_required", Version: 1, Files: []store.AnalysisFile{}}
			if err := h.Store.Statements.CreateAnalysis(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			return a.ID
		},
		bodies: map[string]any{"POST /api/analyses/:id/password": map[string]any{"password": "guess"}},
	},
	"/api/statement-templates/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			r := h.Do("POST", "/api/statement-templates", owner.Key, map[string]any{
				"bank": "Harbour Credit Union", "markers": []string{"Harbour Credit Union"}, "currency": "NZD", "dateLayout": "02/01/2006",
				"number":        map[string]any{"decimal": ".", "thousands": ","},
				"columns":       []any{map[string]any{"kind": "date", "header": "Date"}, map[string]any{"kind": "description", "header": "Particulars"}, map[string]any{"kind": "amount", "header": "Amount"}},
				"openingLabels": []string{"Opening balance"}, "closingLabels": []string{"Closing balance"},
			})
			if r.Status != 201 {
				t.Fatalf("create template: %d %s", r.Status, r.Body)
			}
			return r.Data()["id"].(string)
		},
	},
	"/api/pings/:id": {
		create: func(t *testing.T, h *apitest.Harness, owner apitest.Tenant) string {
			p := &store.Ping{ID: ids.New(ids.Execution), OrgID: owner.Org.ID, Message: "hi"}
			if err := h.Store.Orchestration.CreatePing(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			return p.ID
		},
	},
}

// orgNamed are routes whose parameter is a name inside the caller's organisation, not an id:
// another organisation reaches its own resource of that name (TestOrgNamedResourcesAreTheirOwn).
var orgNamed = map[string]bool{"PUT /api/fraud-lists/:name": true, "GET /api/fraud-lists/:name": true}

// TestOrgNamedResourcesAreTheirOwn: another organisation's list of the same name is its own;
// writing it leaves the owner's untouched.
func TestOrgNamedResourcesAreTheirOwn(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	intruder := h.NewTenant("Intruder")
	key, _ := h.KeyWith(apitest.KeySpec{OrgID: intruder.Org.ID, Scopes: []string{"write"}})
	wantStatus(t, h.Do("PUT", "/api/fraud-lists/deny", h.AdminKey, map[string]any{"values": []string{"owner-value"}}), 200)
	before := h.Do("GET", "/api/fraud-lists/deny", h.AdminKey, nil)
	wantStatus(t, before, 200)
	wantStatus(t, h.Do("PUT", "/api/fraud-lists/deny", key, map[string]any{"values": []string{"intruder-value"}}), 200)
	theirs := h.Do("GET", "/api/fraud-lists/deny", key, nil)
	if bytes.Contains(theirs.Body, []byte("owner-value")) {
		t.Fatalf("another organisation reads the owner's list: %s", theirs.Body)
	}
	if after := h.Do("GET", "/api/fraud-lists/deny", h.AdminKey, nil); !bytes.Equal(before.Body, after.Body) {
		t.Fatalf("the owner's list changed:\nbefore %s\nafter  %s", before.Body, after.Body)
	}
}

// TestCrossOrganisation calls every route that takes an id, with a key of another organisation
// holding every scope, on a resource that exists: each answers 404 not found, exactly as for an
// absent id, and the resource is unchanged (compared through the owner's GET).
func TestCrossOrganisation(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	owner := apitest.Tenant{Org: h.Org, User: h.Admin, Key: h.AdminKey}
	intruder := h.NewTenant("Intruder")
	get := map[string]bool{}
	for _, r := range h.Server.RouteTable() {
		if r.Method == "GET" {
			get[r.Path] = true
		}
	}
	covered := 0
	for _, r := range h.Server.RouteTable() {
		loc := pathParam.FindStringIndex(r.Path)
		if loc == nil || r.Public || orgNamed[r.Method+" "+r.Path] {
			continue
		}
		r := r
		t.Run(r.Method+" "+r.Path, func(t *testing.T) {
			base := r.Path[:loc[1]]
			fx, ok := crossOrgFixtures[base]
			if !ok {
				t.Fatalf("no cross-organisation fixture for %s: add one to crossOrgFixtures in api/crossorg_test.go", base)
			}
			id := fx.create(t, h, owner)
			path := strings.Replace(r.Path, r.Path[loc[0]:loc[1]], id, 1)
			path = pathParam.ReplaceAllString(path, "zzz_00000000000000000000000000")
			snapshot := func() []byte {
				if !get[base] {
					return nil
				}
				res := h.Do("GET", strings.Replace(base, base[loc[0]:], id, 1), owner.Key, nil)
				wantStatus(t, res, 200)
				return res.Body
			}
			before := snapshot()
			scopes := []string{"write", "api:manage", "webhooks:manage"}
			if r.Scope != "" {
				scopes = append(scopes, r.Scope)
			}
			key, _ := h.KeyWith(apitest.KeySpec{OrgID: intruder.Org.ID, Scopes: scopes})
			req := requestFor(r, key)
			req.Path = path
			if b, ok := fx.bodies[r.Method+" "+r.Path]; ok {
				req.Body = b
			}
			wantExactError(t, h.Send(req), 404, api.MsgNotFound)
			h.Clock.Advance(time.Second) // a change would show in updatedAt/status
			if after := snapshot(); !bytes.Equal(before, after) {
				t.Fatalf("resource changed by another organisation:\nbefore %s\nafter  %s", before, after)
			}
		})
		covered++
	}
	if covered < 7 {
		t.Fatalf("only %d routes with an id: the route table is not being walked", covered)
	}
}

// newCase stores an open case of the organisation.
func newCase(t *testing.T, h *apitest.Harness, orgID string) *store.Case {
	t.Helper()
	c, err := h.Store.Cases.CreateCase(context.Background(), store.NewCase{ID: ids.New(ids.Case), OrgID: orgID, Title: "case", Priority: "medium", DueAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
