package fraud_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// secondUser adds an analyst to the harness organisation and returns a key bound to them.
func secondUser(t *testing.T, h *apitest.Harness) (key, userID string) {
	t.Helper()
	u := &store.User{ID: ids.New(ids.User), OrgID: h.Org.ID, Email: fmt.Sprintf("%s@example.com", ids.New(ids.User)), Role: auth.RoleAdmin}
	if err := h.Store.Users.Create(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	k, _ := h.KeyWith(apitest.KeySpec{Scopes: []string{"write"}, ActAsUserID: u.ID})
	return k, u.ID
}

func must(t *testing.T, res *apitest.Response, status int) map[string]any {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	return res.Data()
}

const rules = `{"rules": [
	{"name": "repeat payer", "expression": "velocity.customer.count_1h >= 3", "scoreModifier": 40, "reasonCode": "VELOCITY",
	 "explanation": "{{ velocity.customer.count_1h }} payments in an hour"},
	{"name": "big", "expression": "transaction.amount > 1000", "scoreModifier": 60, "reasonCode": "BIG_AMOUNT"},
	{"name": "ratio", "expression": "transaction.amount / (velocity.customer.count_5m - 1) > 0", "scoreModifier": 0, "reasonCode": "RATIO"}
], "thresholds": {"review": 40, "block_and_review": 60, "decline": 100}}`

func tx(id string, amount string) string {
	return `{"transaction": {"id": "` + id + `", "amount": ` + amount + `, "currency": "EUR", "type": "card_payment", "customerId": "cus_1"}}`
}

// TestFraudEndToEnd drives the product over HTTP on every backend: a rule set through its
// four-eyes life cycle, decisions on the fast path with their evidence, a lookup that keeps
// nothing, a review by a bound key, bad input and other organisations' ids.
func TestFraudEndToEnd(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			h := apitest.New(t, apitest.Options{Backend: &b})
			h.NoRateLimits(h.Org.ID)
			other, otherUser := secondUser(t, h)
			admin := h.AdminKey

			rs := must(t, h.Do("POST", "/api/rulesets", admin, map[string]any{"name": "Cards", "appliesTo": "transaction"}), 201)
			id := rs["id"].(string)
			if !strings.HasPrefix(id, "rul_") {
				t.Errorf("rule set id %s", id)
			}
			// Bad rules come back as field errors naming the rule.
			bad := h.Do("POST", "/api/rulesets/"+id+"/versions", admin, `{"rules": [{"name": "typo", "expression": "transaction.amout > 1", "scoreModifier": 1, "reasonCode": "X"}], "thresholds": {"review": 10}}`)
			fe, _ := bad.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)
			if bad.Status != 400 || !strings.Contains(fmt.Sprint(fe["rules[0].expression"]), `rule "typo"`) {
				t.Errorf("bad rule: %d %s", bad.Status, bad.Body)
			}
			unbound := h.Key("write")
			if res := h.Do("POST", "/api/rulesets/"+id+"/versions", unbound, rules); res.Status != 422 || res.Error() != "api_key_not_bound_to_user" {
				t.Errorf("unbound draft: %d %s", res.Status, res.Body)
			}
			v := must(t, h.Do("POST", "/api/rulesets/"+id+"/versions", admin, rules), 201)
			if v["status"] != "draft" || v["version"] != 1.0 || v["draftedBy"] != h.Admin.ID {
				t.Errorf("version %v", v)
			}
			base := "/api/rulesets/" + id + "/versions/1/"
			if res := h.Do("POST", base+"approve", other, nil); res.Status != 409 || res.Error() != "state conflict: cannot transition draft → approved" {
				t.Errorf("approve a draft: %d %s", res.Status, res.Body)
			}
			must(t, h.Do("POST", base+"submit", admin, nil), 200)
			if res := h.Do("POST", base+"approve", admin, nil); res.Status != 422 || res.Error() != "four-eyes violation: drafter cannot submit" {
				t.Errorf("self-approval: %d %s", res.Status, res.Body)
			}
			if res := h.Do("POST", base+"approve", unbound, nil); res.Status != 422 || res.Error() != "api_key_not_bound_to_user" {
				t.Errorf("unbound approval: %d %s", res.Status, res.Body)
			}
			if v := must(t, h.Do("POST", base+"approve", other, nil), 200); v["decidedBy"] != otherUser {
				t.Errorf("approved %v", v)
			}
			must(t, h.Do("POST", base+"publish", admin, nil), 200)
			if res := h.Do("POST", base+"publish", admin, nil); res.Status != 409 {
				t.Errorf("publish twice: %d %s", res.Status, res.Body)
			}

			// Three payments: the third hits the velocity rule (count includes itself).
			var last map[string]any
			for i := 1; i <= 3; i++ {
				last = must(t, h.Do("POST", "/api/transactions/evaluate", admin, tx(fmt.Sprint("t", i), "20")), 200)
			}
			if last["outcome"] != "review" || last["score"] != 40.0 || !strings.HasPrefix(last["id"].(string), "dec_") {
				t.Fatalf("third decision %v", last)
			}
			m := last["matchedRules"].([]any)[0].(map[string]any)
			if m["explanation"] != "3 payments in an hour" || m["vars"].(map[string]any)["velocity.customer.count_1h"] != 3.0 || m["ruleVersion"] != 1.0 {
				t.Errorf("matched rule %v", m)
			}
			if rsr := last["ruleset"].(map[string]any); rsr["id"] != id || rsr["version"] != 1.0 {
				t.Errorf("ruleset %v", rsr)
			}
			// The first decision's ratio rule divided by zero: recorded, not fatal.
			page := h.Do("GET", "/api/decisions?limit=10", admin, nil)
			rows, _ := page.JSON["rows"].([]any)
			if page.Status != 200 || len(rows) != 3 {
				t.Fatalf("list: %d %s", page.Status, page.Body)
			}
			first := rows[2].(map[string]any)
			if errs := first["ruleErrors"].([]any); len(errs) != 1 || !strings.Contains(errs[0].(map[string]any)["error"].(string), "division by zero") {
				t.Errorf("first decision's rule errors %v", first["ruleErrors"])
			}
			// A lookup computes the same as a fourth payment would and keeps nothing.
			look := must(t, h.Do("POST", "/api/lookup", admin, tx("t4", "2000")), 200)
			if look["outcome"] != "decline" || look["id"] != nil {
				t.Errorf("lookup %v", look)
			}
			again := must(t, h.Do("POST", "/api/transactions/evaluate", admin, tx("t4", "20")), 200)
			if again["features"].(map[string]any)["customer"].(map[string]any)["count_1h"] != 4.0 {
				t.Errorf("the lookup counted: %v", again["features"])
			}

			// Review: a bound key; once.
			did := last["id"].(string)
			if res := h.Do("POST", "/api/decisions/"+did+"/review", unbound, map[string]any{"decision": "approve"}); res.Status != 422 {
				t.Errorf("unbound review: %d", res.Status)
			}
			if r := must(t, h.Do("POST", "/api/decisions/"+did+"/review", other, map[string]any{"decision": "decline"}), 200); r["reviewStatus"] != "declined" {
				t.Errorf("review %v", r)
			}
			if res := h.Do("POST", "/api/decisions/"+did+"/review", other, map[string]any{"decision": "approve"}); res.Status != 409 {
				t.Errorf("second review: %d %s", res.Status, res.Body)
			}

			// Bad input is a 400 naming the field.
			for body, field := range map[string]string{
				`{"transaction": {"id": "x", "amount": "12.50", "currency": "EUR", "type": "p", "customerId": "c"}}`:                                 "transaction.amount",
				`{"transaction": {"id": "x", "amount": -0, "currency": "EUR", "type": "p", "customerId": "c"}}`:                                      "transaction.amount",
				`{"transaction": {"id": "x", "amount": 1, "currency": "EURO", "type": "p", "customerId": "c"}}`:                                      "transaction.currency",
				`{"transaction": {"id": "x", "amount": 1, "currency": "EUR", "type": "p", "customerId": "c", "occurredAt": "2999-01-01T00:00:00Z"}}`: "transaction.occurredAt",
				`{"transaction": {"id": "x", "amount": 1, "currency": "EUR", "type": "p", "customerId": "c"}, "deviceSessionId": "dvs_nope"}`:        "deviceSessionId",
			} {
				res := h.Do("POST", "/api/transactions/evaluate", admin, body)
				fe, _ := res.JSON["details"].(map[string]any)
				if res.Status != 400 || fe == nil || fe["fieldErrors"].(map[string]any)[field] == nil {
					t.Errorf("%s: %d %s, want 400 on %s", body, res.Status, res.Body, field)
				}
			}

			// Another organisation sees none of it.
			stranger := h.NewTenant("other").Key
			for _, path := range []string{"/api/decisions/" + did, "/api/rulesets/" + id, "/api/rulesets/" + id + "/versions/1"} {
				if res := h.Do("GET", path, stranger, nil); res.Status != 404 {
					t.Errorf("GET %s by another organisation: %d", path, res.Status)
				}
			}
			if res := h.Do("POST", "/api/decisions/"+did+"/review", stranger, map[string]any{"decision": "approve"}); res.Status != 404 && res.Status != 422 {
				t.Errorf("review by another organisation: %d", res.Status)
			}
			sess := must(t, h.Do("POST", "/api/device-session", admin, map[string]any{"deviceId": "fp_1", "customerId": "cus_1", "ip": "10.0.0.1"}), 201)
			res := h.Do("POST", "/api/transactions/evaluate", stranger, `{"transaction": {"id": "x", "amount": 1, "currency": "EUR", "type": "p", "customerId": "c"}, "deviceSessionId": "`+sess["id"].(string)+`"}`)
			if res.Status != 400 {
				t.Errorf("another organisation's device session: %d %s", res.Status, res.Body)
			}
		})
	}
}

// TestFraudDecisionAuditedWithIt: a decision's audit entry is committed in the decision's own
// transaction (on SQLite, in the batch of concurrent decisions) with the decision as its
// resource and the caller's key, exactly once; a refused evaluation writes none, and a lookup,
// which keeps nothing, is audited as any other write.
func TestFraudDecisionAuditedWithIt(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			h := apitest.New(t, apitest.Options{Backend: &b})
			h.NoRateLimits(h.Org.ID)
			key, keyID := h.KeyWith(apitest.KeySpec{Scopes: []string{"write"}})
			const n = 16
			decided := make(chan string, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					res := h.Do("POST", "/api/transactions/evaluate", key, tx(fmt.Sprint("audit-", i), "20"))
					if res.Status != 200 {
						t.Errorf("evaluate %d: %d %s", i, res.Status, res.Body)
						return
					}
					decided <- res.Data()["id"].(string)
				})
			}
			wg.Wait()
			close(decided)
			if res := h.Do("POST", "/api/transactions/evaluate", key, `{"transaction": {"id": "bad", "amount": "ten"}}`); res.Status != 400 {
				t.Fatalf("bad evaluation: %d %s", res.Status, res.Body)
			}
			must(t, h.Do("POST", "/api/lookup", key, tx("lookup-1", "20")), 200)

			var entries []store.AuditLog
			if err := h.Store.DB.Where("org_id = ? AND api_key_id = ?", h.Org.ID, keyID).Find(&entries).Error; err != nil {
				t.Fatal(err)
			}
			byResource := map[string]int{}
			lookups := 0
			for _, e := range entries {
				switch e.Action {
				case "POST /api/transactions/evaluate":
					if e.Status != 200 || e.RequestID == "" || e.Environment == "" {
						t.Errorf("decision entry %+v", e)
					}
					byResource[e.ResourceID]++
				case "POST /api/lookup":
					lookups++
				default:
					t.Errorf("unexpected entry %+v", e)
				}
			}
			for id := range decided {
				if byResource[id] != 1 {
					t.Errorf("decision %s has %d audit entries, want 1", id, byResource[id])
				}
			}
			if len(byResource) != n || lookups != 1 {
				t.Errorf("%d decisions audited (want %d), %d lookups (want 1): %+v", len(byResource), n, lookups, entries)
			}
		})
	}
}
