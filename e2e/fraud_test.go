package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/svcplatform/svc/store"
)

// fraudRules is version 1 (live): a third payment of a customer within an hour is held for
// review, a large one is declined.
const fraudRules = `{"rules": [
	{"name": "repeat payer", "expression": "velocity.customer.count_1h >= 3", "scoreModifier": 40, "reasonCode": "VELOCITY",
	 "explanation": "{{ velocity.customer.count_1h }} payments in an hour"},
	{"name": "large", "expression": "transaction.amount >= 5000", "scoreModifier": 100, "reasonCode": "LARGE"},
	{"name": "shared device", "expression": "velocity.device.distinct_customer_24h >= 2", "scoreModifier": 10, "reasonCode": "SHARED_DEVICE"}
], "thresholds": {"review": 40, "decline": 100}}`

// fraudCandidate is version 2 (shadow, then backtested): it also holds payments over 100.
const fraudCandidate = `{"rules": [
	{"name": "repeat payer", "expression": "velocity.customer.count_1h >= 3", "scoreModifier": 40, "reasonCode": "VELOCITY"},
	{"name": "large", "expression": "transaction.amount >= 5000", "scoreModifier": 100, "reasonCode": "LARGE"},
	{"name": "over 100", "expression": "transaction.amount > 100", "scoreModifier": 40, "reasonCode": "OVER_100"}
], "thresholds": {"review": 40, "decline": 100}}`

// TestFraudEndToEnd runs the anti-fraud product on the real embedded stack (API, Temporal
// server, worker, SQLite): a rule set through four-eyes approval and publication; a device
// session shared by two customers, with its velocity over 5 min / 1 h / 24 h; decisions on the fast path with a shadow version beside the
// live one, its results kept with each decision; an alert in the one alerts table for a
// decision held for review, closed when a bound reviewer declines it; a backtest workflow over
// the stored decisions; and every product event delivered, signed, to a subscriber.
func TestFraudEndToEnd(t *testing.T) {
	s := boot(t, t.TempDir(), bootOptions{})
	admin := client{t: t, base: s.BaseURL, key: s.Credentials.APIKey}
	sink := newEventSink(t)
	sink.subscribe(admin, "fraud.decision.review", "fraud.decision.declined", "fraud.ruleset.published", "fraud.backtest.completed")
	checker := newPerson(admin, "admin", "fraud:write", "fraud:view")
	asChecker := client{t: t, base: s.BaseURL, key: checker.key}
	want := func(r response, status int) map[string]any {
		t.Helper()
		if r.Status != status {
			t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
		}
		return r.data(t)
	}

	rs := want(admin.do("POST", "/api/rulesets", map[string]any{"name": "Cards", "appliesTo": "transaction"}), 201)
	base := "/api/rulesets/" + str(rs["id"]) + "/versions"
	for _, body := range []string{fraudRules, fraudCandidate} {
		var spec map[string]any
		if err := json.Unmarshal([]byte(body), &spec); err != nil {
			t.Fatal(err)
		}
		want(admin.do("POST", base, spec), 201)
	}
	want(admin.do("POST", base+"/1/submit", nil), 200)
	if r := admin.do("POST", base+"/1/approve", nil); r.Status != 422 || r.Body["error"] != "four-eyes violation: drafter cannot submit" {
		t.Fatalf("the drafter approved: %d %s", r.Status, r.Raw)
	}
	want(asChecker.do("POST", base+"/1/approve", nil), 200)
	want(admin.do("POST", base+"/1/publish", nil), 200)
	want(admin.do("POST", base+"/2/shadow", nil), 200)

	// Two customers on one device: the second sees the device shared.
	dev := want(admin.do("POST", "/api/device-session", map[string]any{"deviceId": "fp_e2e", "customerId": "cus_a", "ip": "10.1.1.1"}), 201)
	pay := func(id, customer string, amount float64) map[string]any {
		return want(admin.do("POST", "/api/transactions/evaluate", map[string]any{
			"transaction":     map[string]any{"id": id, "amount": amount, "currency": "EUR", "type": "card_payment", "customerId": customer},
			"deviceSessionId": dev["id"],
		}), 200)
	}
	first := pay("t1", "cus_a", 50)
	if first["outcome"] != "approve" || first["shadow"].(map[string]any)["outcome"] != "approve" {
		t.Errorf("first payment %v", first)
	}
	second := pay("t2", "cus_a", 150) // shadow: over 100 → review; live: approve
	if second["outcome"] != "approve" || second["shadow"].(map[string]any)["outcome"] != "review" {
		t.Errorf("second payment (shadow must not change the outcome) %v", second)
	}
	third := pay("t3", "cus_a", 20)
	if third["outcome"] != "review" || fmt.Sprint(third["reasonCodes"]) != "[VELOCITY]" {
		t.Fatalf("third payment %v", third)
	}
	again := want(admin.do("POST", "/api/device-session", map[string]any{"deviceId": "fp_e2e", "customerId": "cus_b", "ip": "10.1.1.2"}), 201)
	if v, _ := again["velocity"].(map[string]any); v["distinct_customer_5m"] != 2.0 || v["distinct_ip_1h"] != 2.0 || v["distinct_customer_24h"] != 2.0 ||
		again["firstSeenAt"] != dev["firstSeenAt"] {
		t.Errorf("the device's second session %v (first %v)", again, dev)
	}
	other := pay("t4", "cus_b", 20)
	if other["features"].(map[string]any)["device"].(map[string]any)["distinct_customer_24h"] != 2.0 {
		t.Errorf("the shared device's features %v", other["features"])
	}
	large := pay("t5", "cus_b", 9000)
	if large["outcome"] != "decline" {
		t.Errorf("large payment %v", large)
	}
	// The shadow result is kept with the stored decision.
	stored := want(admin.do("GET", "/api/decisions/"+str(second["id"]), nil), 200)
	if sh, _ := stored["shadow"].(map[string]any); sh == nil || sh["version"] != 2.0 || sh["outcome"] != "review" {
		t.Errorf("stored decision's shadow %v", stored["shadow"])
	}

	// The decision held for review raised one alert in the cases product's table.
	held := str(third["id"])
	alertOf := func() *store.Alert {
		var a store.Alert
		if err := s.App.Store.DB.WithContext(context.Background()).Where("source = ? AND source_ref = ?", "fraud", held).Take(&a).Error; err != nil {
			t.Fatalf("the alert of %s: %v", held, err)
		}
		return &a
	}
	if a := alertOf(); a.Status != "open" || a.OrgID != s.Credentials.OrgID || a.CustomerID != "cus_a" {
		t.Errorf("alert %+v", a)
	}
	if r := asChecker.do("POST", "/api/decisions/"+held+"/review", map[string]any{"decision": "decline"}); r.Status != 200 || r.data(t)["reviewStatus"] != "declined" {
		t.Fatalf("review: %d %s", r.Status, r.Raw)
	}
	if a := alertOf(); a.Status == "open" {
		t.Errorf("the alert stayed open after the review: %+v", a)
	}

	// Backtest the candidate over everything decided so far.
	now := time.Now().UTC()
	bt := want(admin.do("POST", "/api/rulesets/"+str(rs["id"])+"/backtests", map[string]any{
		"version": 2, "from": now.Add(-time.Hour).Format(time.RFC3339), "to": now.Add(time.Hour).Format(time.RFC3339),
	}), 202)
	var done map[string]any
	eventually(t, 2*time.Minute, "backtest "+str(bt["id"]), func() bool {
		done = want(admin.do("GET", "/api/backtests/"+str(bt["id"]), nil), 200)
		return done["status"] != "running"
	})
	report, _ := done["report"].(map[string]any)
	if done["status"] != "completed" || report == nil || report["evaluated"] != 5.0 {
		t.Fatalf("backtest %v", done)
	}
	recordHistoryAt(t, s.App.Temporal, str(bt["id"]), filepath.Join("..", "workflows", "fraud", "testdata", "backtest_completed.json"))
	// Version 2 holds t2 (150) for review where version 1 approved it; t4 lost its shared-device
	// score but stays approve; t1, t3, t5 keep their outcomes.
	if report["changed"] != 1.0 {
		t.Errorf("backtest report %v", report)
	}

	for _, ev := range []struct{ name, key, value string }{
		{"fraud.ruleset.published", "ruleSetId", str(rs["id"])},
		{"fraud.decision.review", "decisionId", held},
		{"fraud.decision.declined", "decisionId", str(large["id"])},
		{"fraud.decision.declined", "decisionId", held},
		{"fraud.backtest.completed", "backtestId", str(bt["id"])},
	} {
		eventually(t, 30*time.Second, ev.name+" of "+ev.value, func() bool {
			sink.mu.Lock()
			defer sink.mu.Unlock()
			for _, got := range sink.events {
				if got.Event == ev.name && got.Data[ev.key] == ev.value {
					return true
				}
			}
			return false
		})
	}
	// A reviewer's decline is one event, however many times its delivery is tried.
	sink.mu.Lock()
	defer sink.mu.Unlock()
	declines := 0
	for _, got := range sink.events {
		if got.Event == "fraud.decision.declined" && got.Data["decisionId"] == held {
			declines++
		}
	}
	if declines != 1 {
		t.Errorf("%d fraud.decision.declined events of the reviewed decision, want 1", declines)
	}
}
