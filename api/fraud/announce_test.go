package fraud_test

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// counting is a log handler that counts the records whose message holds msg.
type counting struct {
	msg string
	n   *atomic.Int64
}

func (c counting) Enabled(context.Context, slog.Level) bool { return true }
func (c counting) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c counting) WithGroup(string) slog.Handler            { return c }

func (c counting) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, c.msg) {
		c.n.Add(1)
	}
	return nil
}

// TestDecisionEventWithoutDeliveriesIsNotWarnedAbout: without secrets.key the evaluator cannot
// make an event's first attempts and says so, but only for an event some subscription wants: a
// decision whose event has no delivery logs nothing (it used to warn on every decision).
func TestDecisionEventWithoutDeliveriesIsNotWarnedAbout(t *testing.T) {
	const warning = "first attempts left to the worker's sweep"
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			warned := &atomic.Int64{}
			h := apitest.New(t, apitest.Options{Backend: &b, Logger: slog.New(counting{warning, warned})})
			h.NoRateLimits(h.Org.ID)
			other, _ := secondUser(t, h)
			rs := must(t, h.Do("POST", "/api/rulesets", h.AdminKey, map[string]any{"name": "Cards", "appliesTo": "transaction"}), 201)
			base := "/api/rulesets/" + rs["id"].(string) + "/versions"
			must(t, h.Do("POST", base, h.AdminKey, `{"rules": [{"name": "all", "expression": "transaction.amount > 0", "scoreModifier": 50, "reasonCode": "ALL"}],
				"thresholds": {"review": 40}}`), 201)
			must(t, h.Do("POST", base+"/1/submit", h.AdminKey, nil), 200)
			must(t, h.Do("POST", base+"/1/approve", other, nil), 200)
			must(t, h.Do("POST", base+"/1/publish", h.AdminKey, nil), 200)

			if d := must(t, h.Do("POST", "/api/transactions/evaluate", h.AdminKey, tx("quiet", "20")), 200); d["outcome"] != "review" {
				t.Fatalf("decision %v, want review (it announces fraud.decision.review)", d)
			}
			if n := warned.Load(); n != 0 {
				t.Fatalf("a decision no subscription hears was warned about %d times", n)
			}

			// A subscription that wants the event: now there is a delivery the API cannot attempt.
			sub := store.WebhookSubscription{ID: ids.New(ids.Webhook), OrgID: h.Org.ID, URL: "https://hooks.example.com/fraud",
				Events: []string{"fraud.decision.review"}, Active: true, SecretSealed: "sealed"}
			if err := h.Store.DB.Create(&sub).Error; err != nil {
				t.Fatal(err)
			}
			must(t, h.Do("POST", "/api/transactions/evaluate", h.AdminKey, tx("heard", "20")), 200)
			if n := warned.Load(); n != 1 {
				t.Fatalf("%d warnings for a decision a subscription wants, want 1", n)
			}
		})
	}
}
