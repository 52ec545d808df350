package fraud_test

import (
	"strings"
	"testing"

	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/store/storetest"
)

// TestFraudValueLists: a value list is replaced whole over the API, is the organisation's own,
// and is what a published rule reading lists.<name> sees on the next decision.
func TestFraudValueLists(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			h := apitest.New(t, apitest.Options{Backend: &b})
			h.NoRateLimits(h.Org.ID)
			other, _ := secondUser(t, h)
			admin := h.AdminKey

			if l := must(t, h.Do("GET", "/api/fraud-lists/deny_customers", admin, nil), 200); l["count"] != 0.0 {
				t.Errorf("a list never set: %v", l)
			}
			rs := must(t, h.Do("POST", "/api/rulesets", admin, map[string]any{"name": "Cards", "appliesTo": "transaction"}), 201)
			base := "/api/rulesets/" + rs["id"].(string) + "/versions"
			must(t, h.Do("POST", base, admin, `{"rules": [{"name": "denied", "expression": "transaction.customerId in lists.deny_customers",
				"scoreModifier": 100, "reasonCode": "DENY_LIST"}], "thresholds": {"decline": 100}}`), 201)
			must(t, h.Do("POST", base+"/1/submit", admin, nil), 200)
			must(t, h.Do("POST", base+"/1/approve", other, nil), 200)
			must(t, h.Do("POST", base+"/1/publish", admin, nil), 200)

			if d := must(t, h.Do("POST", "/api/transactions/evaluate", admin, tx("t1", "10")), 200); d["outcome"] != "approve" {
				t.Errorf("before the list: %v", d)
			}
			l := must(t, h.Do("PUT", "/api/fraud-lists/deny_customers", admin, map[string]any{"values": []string{"cus_2", "cus_1", "cus_1"}}), 200)
			if l["count"] != 2.0 || l["values"].([]any)[0] != "cus_1" {
				t.Errorf("stored list %v", l)
			}
			if d := must(t, h.Do("POST", "/api/transactions/evaluate", admin, tx("t2", "10")), 200); d["outcome"] != "decline" || d["reasonCodes"].([]any)[0] != "DENY_LIST" {
				t.Errorf("on the list: %v", d)
			}
			must(t, h.Do("PUT", "/api/fraud-lists/deny_customers", admin, map[string]any{"values": []string{}}), 200)
			if d := must(t, h.Do("POST", "/api/transactions/evaluate", admin, tx("t3", "10")), 200); d["outcome"] != "approve" {
				t.Errorf("after emptying the list: %v", d)
			}

			for path, body := range map[string]string{
				"/api/fraud-lists/Bad-Name":       `{"values": []}`,
				"/api/fraud-lists/ok":             `{"values": "cus_1"}`,
				"/api/fraud-lists/ok?x=1":         `{"values": [""]}`,
				"/api/fraud-lists/still_ok":       `{"vals": []}`,
				"/api/fraud-lists/" + "a" + "_b1": `{"values": [1]}`,
			} {
				res := h.Do("PUT", path, admin, body)
				if res.Status != 400 || !strings.Contains(string(res.Body), "fieldErrors") {
					t.Errorf("PUT %s %s: %d %s", path, body, res.Status, res.Body)
				}
			}
			must(t, h.Do("PUT", "/api/fraud-lists/deny_customers", admin, map[string]any{"values": []string{"cus_9"}}), 200)
			stranger := h.NewTenant("other").Key
			if l := must(t, h.Do("GET", "/api/fraud-lists/deny_customers", stranger, nil), 200); l["count"] != 0.0 {
				t.Errorf("another organisation sees %v", l)
			}
		})
	}
}
