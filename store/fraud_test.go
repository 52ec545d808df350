package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/internal/statemachine"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// testBudget is the rule budget of these tests: long enough never to fire however loaded the
// machine is, so that what they check does not depend on wall time. That the budget does fire
// is internal/fraud's TestBudgetSpentRecordsTheRulesLeft.
const testBudget = time.Hour

// allFeaturesVersion is a version whose one rule reads every velocity feature, so an evaluation
// computes them all.
func allFeaturesVersion(t *testing.T) *store.FraudVersion {
	t.Helper()
	var rules []fraud.RuleSpec
	for i, f := range fraud.AllFeatures() {
		rules = append(rules, fraud.RuleSpec{Name: fmt.Sprintf("r%d", i), Expression: "velocity." + f.Path() + " < 0", ScoreModifier: 1, ReasonCode: "NEVER"})
	}
	thr := 10
	rs, err := fraud.Compile(fraud.VersionSpec{Rules: rules, Thresholds: fraud.Thresholds{Review: &thr}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &store.FraudVersion{RuleSetID: "rul_test", Version: 1, Rules: rs}
}

// TestFraudVelocityIsExact evaluates random transactions in time order and checks every
// feature the database computes against the in-memory counters of the same events, which the
// engine's tests check against a brute-force count.
func TestFraudVelocityIsExact(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, org, live, mem := context.Background(), newOrg(t, s), allFeaturesVersion(t), fraud.NewMemoryVelocity()
		rng := rand.New(rand.NewPCG(7, 8))
		at := time.Now().UTC().Add(-40 * 24 * time.Hour).Truncate(time.Millisecond)
		for i := 0; i < 60; i++ {
			at = at.Add(time.Duration(rng.Int64N(int64(36*time.Hour))) / time.Duration(1+rng.IntN(50)))
			req := randomTransfer(t, rng, i, at, [4]int{2, 3, 3, 4})
			d, err := s.Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: org, Request: req, Live: live, Persist: true})
			if err != nil {
				t.Fatal(err)
			}
			sameAsMemory(t, mem, req, d, live, fmt.Sprintf("event %d", i))
			if len(d.Evaluation.Live.Errors) != 0 {
				t.Fatalf("rule errors %v", d.Evaluation.Live.Errors)
			}
		}
	})
}

// TestFraudVelocityInAnyOrder evaluates transactions over 40 days in shuffled time order, some
// a second either side of an hour's and a day's end, and checks every feature against the
// in-memory counters of the same events in the same order. An event evaluated late counts the
// values seen after it in its window as the in-memory counters do (fraud.SeenKey): the store
// agrees with them in any order, not only in time order.
func TestFraudVelocityInAnyOrder(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, org, live, mem := context.Background(), newOrg(t, s), allFeaturesVersion(t), fraud.NewMemoryVelocity()
		rng := rand.New(rand.NewPCG(15, 16))
		base := time.Now().UTC().Add(-40 * 24 * time.Hour).Truncate(time.Millisecond)
		ats := make([]time.Time, 70)
		for i := range ats {
			ats[i] = base.Add(time.Duration(rng.Int64N(int64(40 * 24 * time.Hour))))
		}
		day := base.Truncate(24 * time.Hour).Add(10 * 24 * time.Hour)
		ats = append(ats, day.Add(-time.Second), day, day.Add(time.Hour-time.Second), day.Add(time.Hour))
		rng.Shuffle(len(ats), func(i, j int) { ats[i], ats[j] = ats[j], ats[i] })
		for i, at := range ats {
			req := randomTransfer(t, rng, i, at, [4]int{2, 3, 2, 4})
			d, err := s.Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: org, Request: req, Live: live, Persist: true})
			if err != nil {
				t.Fatal(err)
			}
			sameAsMemory(t, mem, req, d, live, fmt.Sprintf("event %d at %s", i, at))
		}
	})
}

func evalReq(t *testing.T, body string) *fraud.EvaluateRequest {
	t.Helper()
	req, err := fraud.ParseEvaluate([]byte(body), "", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// randomTransfer is transfer n at at, its customer, account, counterparty and IP drawn from
// sets of the sizes in kinds, so that they repeat, its currency and country from two and three.
func randomTransfer(t *testing.T, rng *rand.Rand, n int, at time.Time, kinds [4]int) *fraud.EvaluateRequest {
	t.Helper()
	body := fmt.Sprintf(`{"transaction": {"id": "t%d", "amount": %d.%02d, "currency": "%s", "type": "transfer", "customerId": "c%d",
		"accountId": "a%d", "counterparty": "p%d", "country": "%s", "ip": "10.0.0.%d", "occurredAt": %q}}`,
		n, rng.IntN(500), rng.IntN(100), []string{"EUR", "USD"}[rng.IntN(2)], rng.IntN(kinds[0]), rng.IntN(kinds[1]), rng.IntN(kinds[2]),
		[]string{"DE", "FR", "NL"}[rng.IntN(3)], rng.IntN(kinds[3]), at.Format(time.RFC3339Nano))
	req, err := fraud.ParseEvaluate([]byte(body), fraud.KindTransaction, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// sameAsMemory records req's event in mem and fails unless every feature of d, req's decision,
// is what mem counts.
func sameAsMemory(t *testing.T, mem *fraud.MemoryVelocity, req *fraud.EvaluateRequest, d *store.FraudDecided, live *store.FraudVersion, which string) {
	t.Helper()
	obs := fraud.ObserveEvent(&req.Event, "")
	mem.Record(obs)
	want := mem.Read(obs, live.Rules.Features())
	for _, f := range live.Rules.Features() {
		got, exp := d.Features[string(f.Dimension)][f.Name()], want[string(f.Dimension)][f.Name()]
		if math.Abs(got-exp) > 1e-9 {
			t.Fatalf("%s: velocity.%s = %v from the database, %v counted", which, f.Path(), got, exp)
		}
	}
}

// TestFraudBatchIsExact writes random transactions in batches of several sizes, each in time
// order and sharing customers, accounts, counterparties, IPs and countries, and checks every
// feature of every decision against the in-memory counters of the same events in the same
// order: a decision sees exactly those before it in its batch (on PostgreSQL, the statements of
// one pipeline, each adding its own event to what its snapshot shows).
func TestFraudBatchIsExact(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx, org, live, mem := context.Background(), newOrg(t, s), allFeaturesVersion(t), fraud.NewMemoryVelocity()
		rng := rand.New(rand.NewPCG(9, 10))
		at := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Millisecond)
		n := 0
		for _, size := range []int{1, 7, 24, 2, 30} {
			ins := make([]store.FraudEvaluation, size)
			reqs := make([]*fraud.EvaluateRequest, size)
			for i := range ins {
				n++
				at = at.Add(time.Duration(rng.Int64N(int64(90 * time.Second))))
				reqs[i] = randomTransfer(t, rng, n, at, [4]int{3, 4, 2, 5})
				ins[i] = store.FraudEvaluation{Budget: testBudget, OrgID: org, Request: reqs[i], Live: live, Persist: true}
			}
			decided, err := store.WriteDecisionBatch(ctx, s, ins)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range decided {
				sameAsMemory(t, mem, reqs[i], d, live, fmt.Sprintf("batch of %d, decision %d", size, i))
			}
		}
		var stored int64
		if err := s.DB.Model(&store.FraudDecision{}).Where("org_id = ?", org).Count(&stored).Error; err != nil || stored != int64(n) {
			t.Fatalf("%d decisions stored (%v), want %d", stored, err, n)
		}
	})
}

// TestFraudDecisionEvidenceAndLookup: a decision keeps its evidence and raises an alert when it
// needs a person; a lookup computes the same and keeps nothing; device sessions are the
// organisation's own.
func TestFraudDecisionEvidenceAndLookup(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org, other := newOrg(t, s), newOrg(t, s)
		review := 20
		rs, err := fraud.Compile(fraud.VersionSpec{Rules: []fraud.RuleSpec{
			{Name: "repeat", Expression: "velocity.customer.count_1h >= 2", ScoreModifier: 25, ReasonCode: "REPEAT", Explanation: "{{ velocity.customer.count_1h }} in an hour"},
			{Name: "shared", Expression: "device.known && velocity.device.distinct_customer_24h >= 2", ScoreModifier: 5, ReasonCode: "SHARED"},
		}, Thresholds: fraud.Thresholds{Review: &review}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		live := &store.FraudVersion{RuleSetID: "rul_x", Version: 3, Rules: rs}
		sess, err := s.Fraud.CreateDeviceSession(ctx, org, &fraud.DeviceSessionRequest{DeviceID: "fp1", CustomerID: "c1", IP: "10.1.1.1", Country: "DE"})
		if err != nil || sess.Velocity["device"]["distinct_customer_5m"] != 1 {
			t.Fatalf("session %+v, %v", sess, err)
		}
		sess2, err := s.Fraud.CreateDeviceSession(ctx, org, &fraud.DeviceSessionRequest{DeviceID: "fp1", CustomerID: "c2"})
		if err != nil || sess2.Velocity["device"]["distinct_customer_24h"] != 2 || !sess2.FirstSeen.Equal(sess.FirstSeen) {
			t.Fatalf("second session %+v, %v", sess2, err)
		}
		body := `{"transaction": {"id": "t1", "amount": 10, "currency": "EUR", "type": "card_payment", "customerId": "c1"}, "deviceSessionId": "` + sess.Session.ID + `"}`
		first, err := s.Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: org, Request: evalReq(t, body), Live: live, Persist: true})
		if err != nil || first.Decision.Outcome != "approve" || first.Alert != nil || first.Features["device"]["distinct_customer_24h"] != 2 {
			t.Fatalf("first %+v, %v", first, err)
		}
		look, err := s.Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: org, Request: evalReq(t, body), Live: live, Persist: false})
		if err != nil || look.Decision.Outcome != "review" || look.Features["customer"]["count_1h"] != 2 {
			t.Fatalf("lookup %+v, %v", look, err)
		}
		if _, err := s.Fraud.GetDecision(ctx, org, look.Decision.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the lookup's decision was kept: %v", err)
		}
		second, err := s.Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: org, Request: evalReq(t, body), Live: live, Persist: true})
		if err != nil || second.Decision.Outcome != "review" || second.Features["customer"]["count_1h"] != 2 || second.Alert == nil {
			t.Fatalf("second %+v, %v (a lookup must not have counted)", second, err)
		}
		// The decision's event is written with it; an approve and a lookup write none.
		if first.Announced != nil || look.Announced != nil {
			t.Errorf("events of an approve (%+v) or a lookup (%+v)", first.Announced, look.Announced)
		}
		wantStoredEvent(t, s, second.Announced, "fraud.decision.review", second.Decision.ID)
		got, err := s.Fraud.GetDecision(ctx, org, second.Decision.ID)
		if err != nil {
			t.Fatal(err)
		}
		var res fraud.Result
		var snap fraud.Snapshot
		if json.Unmarshal([]byte(got.Result), &res) != nil || json.Unmarshal([]byte(got.Snapshot), &snap) != nil ||
			res.Matched[0].Explanation != "2 in an hour" || snap.Device.ID != "fp1" || snap.Velocity["customer"]["count_1h"] != 2 || got.ReviewStatus != "pending" {
			t.Errorf("stored evidence %+v %+v %+v", got, res, snap)
		}
		if _, err := s.Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: other, Request: evalReq(t, body), Live: live, Persist: true}); !errors.Is(err, store.ErrUnknownDeviceSession) {
			t.Errorf("another organisation's device session: %v", err)
		}
		if _, err := s.Fraud.GetDecision(ctx, other, second.Decision.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another organisation reads the decision: %v", err)
		}

		// Review: pending → declined once; again is a state conflict; approve decisions are not reviewed.
		_, declined, err := s.Fraud.ReviewDecision(ctx, org, second.Decision.ID, fraud.ReviewDeclined, "usr_r", "stolen")
		if err != nil {
			t.Fatal(err)
		}
		wantStoredEvent(t, s, declined, "fraud.decision.declined", second.Decision.ID)
		var c *statemachine.ConflictError
		if _, _, err := s.Fraud.ReviewDecision(ctx, org, second.Decision.ID, fraud.ReviewApproved, "usr_r", ""); !errors.As(err, &c) || c.From != "declined" {
			t.Errorf("second review: %v", err)
		}
		if _, _, err := s.Fraud.ReviewDecision(ctx, org, first.Decision.ID, fraud.ReviewApproved, "usr_r", ""); !errors.As(err, &c) || c.From != "not_required" {
			t.Errorf("review of an approve decision: %v", err)
		}
		if _, _, err := s.Fraud.ReviewDecision(ctx, other, second.Decision.ID, fraud.ReviewApproved, "usr_r", ""); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another organisation reviews: %v", err)
		}
	})
}

// TestFraudDecisionKeepsItsAuditEntry: the audit entry handed to Evaluate is committed by the
// decision's own transaction, naming the decision; a lookup keeps none (its transaction rolls
// back), and neither does a refused evaluation.
func TestFraudDecisionKeepsItsAuditEntry(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := newOrg(t, s)
		entry := func(action string) *store.AuditLog {
			return &store.AuditLog{OrgID: org, Environment: "sandbox", APIKeyID: "key_audit", Action: action, RequestID: "req_" + action, Status: 200}
		}
		body := `{"transaction": {"id": "t1", "amount": 10, "currency": "EUR", "type": "card_payment", "customerId": "c1"}}`
		d, err := s.Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: org, Request: evalReq(t, body), Persist: true, Audit: entry("decide")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: org, Request: evalReq(t, body), Persist: false, Audit: entry("lookup")}); err != nil {
			t.Fatal(err)
		}
		unknown := `{"transaction": {"id": "t2", "amount": 10, "currency": "EUR", "type": "card_payment", "customerId": "c1"}, "deviceSessionId": "dvs_nobody"}`
		if _, err := s.Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: org, Request: evalReq(t, unknown), Persist: true, Audit: entry("refused")}); !errors.Is(err, store.ErrUnknownDeviceSession) {
			t.Fatalf("unknown device session: %v", err)
		}
		var got []store.AuditLog
		if err := s.DB.Where("org_id = ?", org).Find(&got).Error; err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Action != "decide" || got[0].ResourceID != d.Decision.ID || got[0].RequestID != "req_decide" || got[0].ID == "" {
			t.Fatalf("audit entries %+v, want one naming decision %s", got, d.Decision.ID)
		}
	})
}

// TestFraudVersionFourEyes walks a version through its life cycle, with the four-eyes rule and
// the state machine enforced by the conditional writes.
func TestFraudVersionFourEyes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org, other := newOrg(t, s), newOrg(t, s)
		rs, err := s.Fraud.CreateRuleSet(ctx, org, "Cards", "transaction", "usr_a")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Fraud.CreateRuleSet(ctx, org, "Again", "transaction", "usr_a"); !errors.Is(err, store.ErrAppliesToTaken) {
			t.Errorf("second rule set for transactions: %v", err)
		}
		v1, err := s.Fraud.AddRuleSetVersion(ctx, org, rs.ID, `{"rules": []}`, "usr_a")
		if err != nil || v1.Version != 1 || v1.Status != "draft" {
			t.Fatalf("%+v %v", v1, err)
		}
		step := func(v int, a fraud.Action, user string) error {
			_, _, err := s.Fraud.TransitionVersion(ctx, org, rs.ID, v, a, user)
			return err
		}
		var c *statemachine.ConflictError
		if err := step(1, fraud.ActionApprove, "usr_b"); !errors.As(err, &c) || err.Error() != "state conflict: cannot transition draft → approved" {
			t.Errorf("approve a draft: %v", err)
		}
		if err := step(1, fraud.ActionSubmit, ""); !errors.Is(err, fraud.ErrNotBoundToUser) {
			t.Errorf("unbound submit: %v", err)
		}
		if err := step(1, fraud.ActionSubmit, "usr_a"); err != nil {
			t.Fatal(err)
		}
		if err := step(1, fraud.ActionApprove, "usr_a"); !errors.Is(err, fraud.ErrFourEyes) {
			t.Errorf("the drafter approves: %v", err)
		}
		if _, _, err := s.Fraud.TransitionVersion(ctx, other, rs.ID, 1, fraud.ActionApprove, "usr_b"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another organisation approves: %v", err)
		}
		if err := step(1, fraud.ActionApprove, "usr_b"); err != nil {
			t.Fatal(err)
		}
		if err := step(1, fraud.ActionApprove, "usr_c"); !errors.As(err, &c) {
			t.Errorf("approve twice: %v", err)
		}
		if _, err := s.Fraud.ShadowVersion(ctx, org, rs.ID, 1); err != nil {
			t.Errorf("shadow an approved version: %v", err)
		}
		if err := step(1, fraud.ActionPublish, "usr_a"); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Fraud.GetRuleSet(ctx, org, rs.ID)
		if got.PublishedVersion != 1 || got.ShadowVersion != 0 {
			t.Errorf("after publishing: %+v", got)
		}
		var sc *store.ShadowConflictError
		if _, err := s.Fraud.ShadowVersion(ctx, org, rs.ID, 1); !errors.As(err, &sc) {
			t.Errorf("shadow the published version: %v", err)
		}
		// A second version replaces the first, which retires.
		if _, err := s.Fraud.AddRuleSetVersion(ctx, org, rs.ID, `{"rules": []}`, "usr_b"); err != nil {
			t.Fatal(err)
		}
		for _, st := range []struct {
			a    fraud.Action
			user string
		}{{fraud.ActionSubmit, "usr_b"}, {fraud.ActionApprove, "usr_a"}, {fraud.ActionPublish, "usr_b"}} {
			if err := step(2, st.a, st.user); err != nil {
				t.Fatalf("%s: %v", st.a.Name, err)
			}
		}
		old, _ := s.Fraud.GetRuleSetVersion(ctx, org, rs.ID, 1)
		got, _ = s.Fraud.GetRuleSet(ctx, org, rs.ID)
		if old.Status != "retired" || got.PublishedVersion != 2 || old.DecidedBy != "usr_b" || old.PublishedBy != "usr_a" {
			t.Errorf("v1 %+v, rule set %+v", old, got)
		}
		if err := step(2, fraud.ActionPublish, "usr_b"); !errors.As(err, &c) || c.From != "published" {
			t.Errorf("publish a published version: %v", err)
		}
	})
}

// TestFraudConcurrentDecisionsAreExact: decisions made at once by two API processes' stores on
// one database (each grouping its own into shared transactions on SQLite) each see the counters
// of exactly the decisions before them: the customer's event counts the concurrent decisions
// saw are 1..n, each once, and every decision is stored.
func TestFraudConcurrentDecisionsAreExact(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) { concurrentDecisionsAreExact(t, storetest.Open(t, b), storetest.Open(t, b)) })
	}
}

func concurrentDecisionsAreExact(t *testing.T, s, other *store.Store) {
	ctx := context.Background()
	org := newOrg(t, s)
	live := allFeaturesVersion(t)
	var count fraud.Feature
	for _, f := range live.Rules.Features() {
		if f.Dimension == fraud.DimCustomer && f.Metric == fraud.MetricCount && f.Window.Length == fraud.Windows[0].Length {
			count = f
		}
	}
	const n = 40
	at := time.Now().UTC().Truncate(time.Millisecond).Format(time.RFC3339Nano)
	seen := make(chan float64, n)
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			req, err := fraud.ParseEvaluate([]byte(fmt.Sprintf(`{"transaction": {"id": "t%d", "amount": 1, "currency": "EUR", "type": "transfer",
					"customerId": "same", "counterparty": "hot", "occurredAt": %q}}`, i, at)), fraud.KindTransaction, time.Now())
			if err != nil {
				errs <- err
				return
			}
			process := []*store.Store{s, other}[i%2]
			d, err := process.Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: org, Request: req, Live: live, Persist: true})
			if err != nil {
				errs <- err
				return
			}
			seen <- d.Features[string(count.Dimension)][count.Name()]
		}()
	}
	got := map[float64]bool{}
	for i := 0; i < n; i++ {
		select {
		case err := <-errs:
			t.Fatal(err)
		case v := <-seen:
			got[v] = true
		}
	}
	for c := 1; c <= n; c++ {
		if !got[float64(c)] {
			t.Fatalf("no decision saw %d events of the customer (saw %v)", c, got)
		}
	}
	var stored int64
	if err := s.DB.Model(&store.FraudDecision{}).Where("org_id = ?", org).Count(&stored).Error; err != nil || stored != n {
		t.Fatalf("%d decisions stored (%v), want %d", stored, err, n)
	}
}

// wantStoredEvent checks that p is event name about decision id, committed in the events table.
func wantStoredEvent(t *testing.T, s *store.Store, p *store.Published, name, decisionID string) {
	t.Helper()
	if p == nil {
		t.Fatalf("no %s written", name)
	}
	var e store.Event
	if err := s.DB.Where("id = ?", p.Event.ID).Take(&e).Error; err != nil {
		t.Fatalf("%s not committed: %v", name, err)
	}
	var env struct {
		Event string         `json:"event"`
		Data  map[string]any `json:"data"`
	}
	if err := json.Unmarshal(e.Body, &env); err != nil || env.Event != name || env.Data["decisionId"] != decisionID {
		t.Errorf("stored event %s: %+v, %v", e.Body, env, err)
	}
}

// TestFraudDecisionsOfTwoProcessesAreExact: two API processes' stores decide at once for
// customers and counterparties they share, so their batches wait for each other's entities in
// every order: every decision is stored, and each customer's and counterparty's event counts
// the decisions saw are 1..n, each once, and no batch failed (on PostgreSQL, a deadlock between
// the two processes' batches would fail one).
func TestFraudDecisionsOfTwoProcessesAreExact(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s, other := storetest.Open(t, b), storetest.Open(t, b)
			ctx := context.Background()
			org := newOrg(t, s)
			live := allFeaturesVersion(t)
			counts := map[fraud.Dimension]fraud.Feature{}
			for _, f := range live.Rules.Features() {
				if f.Metric == fraud.MetricCount && f.Window.Length == fraud.Windows[len(fraud.Windows)-1].Length {
					counts[f.Dimension] = f
				}
			}
			const n = 120
			at := time.Now().UTC().Truncate(time.Millisecond).Format(time.RFC3339Nano)
			type saw struct {
				customer, counterparty string
				byCustomer, byParty    float64
			}
			results := make(chan saw, n)
			errs := make(chan error, n)
			for i := range n {
				go func() {
					c, p := fmt.Sprintf("c%d", i%4), fmt.Sprintf("p%d", i%3)
					req, err := fraud.ParseEvaluate([]byte(fmt.Sprintf(`{"transaction": {"id": "t%d", "amount": 1, "currency": "EUR", "type": "transfer",
						"customerId": %q, "counterparty": %q, "ip": "10.0.0.%d", "occurredAt": %q}}`, i, c, p, i%5, at)), fraud.KindTransaction, time.Now())
					if err != nil {
						errs <- err
						return
					}
					d, err := []*store.Store{s, other}[i%2].Fraud.Evaluate(ctx, store.FraudEvaluation{Budget: testBudget, OrgID: org, Request: req, Live: live, Persist: true})
					if err != nil {
						errs <- err
						return
					}
					cf, pf := counts[fraud.DimCustomer], counts[fraud.DimCounterparty]
					results <- saw{c, p, d.Features[string(cf.Dimension)][cf.Name()], d.Features[string(pf.Dimension)][pf.Name()]}
				}()
			}
			byCustomer, byParty := map[string][]float64{}, map[string][]float64{}
			for range n {
				select {
				case err := <-errs:
					t.Fatal(err)
				case r := <-results:
					byCustomer[r.customer] = append(byCustomer[r.customer], r.byCustomer)
					byParty[r.counterparty] = append(byParty[r.counterparty], r.byParty)
				}
			}
			for _, group := range []map[string][]float64{byCustomer, byParty} {
				for who, saw := range group {
					slices.Sort(saw)
					for i, v := range saw {
						if v != float64(i+1) {
							t.Fatalf("%s's decisions saw counts %v, want 1..%d each once", who, saw, len(saw))
						}
					}
				}
			}
			var stored int64
			if err := s.DB.Model(&store.FraudDecision{}).Where("org_id = ?", org).Count(&stored).Error; err != nil || stored != n {
				t.Fatalf("%d decisions stored (%v), want %d", stored, err, n)
			}
			if r := store.DecisionBatchesRetried(s) + store.DecisionBatchesRetried(other); r != 0 {
				t.Fatalf("%d decision batches failed and were retried decision by decision, want none", r)
			}
		})
	}
}
