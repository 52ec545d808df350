package fraudhistory

import (
	"context"
	"testing"
	"time"

	"github.com/svcplatform/svc/bench/fraudengine"
	"github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// evaluateFunc decides the transaction of body (persist) or looks it up (nothing kept).
type evaluateFunc func(body string, persist bool)

// eachBackend runs bench on a fresh store of each backend, with an organisation whose live
// version is the benchmark's rule set; now is the clock events are validated against.
func eachBackend(b *testing.B, now time.Time, bench func(b *testing.B, evaluate evaluateFunc)) {
	rules, err := fraud.Compile(fraud.VersionSpec{Rules: fraudengine.Specs(), Thresholds: fraudengine.Thresholds()}, []string{fraudengine.ListName})
	if err != nil {
		b.Fatal(err)
	}
	live := &store.FraudVersion{RuleSetID: "rul_bench", Version: 1, Rules: rules}
	for _, bk := range storetest.Backends(b) {
		b.Run(bk.Name, func(b *testing.B) {
			st := storetest.Open(b, bk)
			ctx := context.Background()
			org, err := st.Orgs.Create(ctx, "bench")
			if err != nil {
				b.Fatal(err)
			}
			bench(b, func(body string, persist bool) {
				req, err := fraud.ParseEvaluate([]byte(body), fraud.KindTransaction, now)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := st.Fraud.Evaluate(ctx, store.FraudEvaluation{OrgID: org.ID, Request: req, Live: live, Persist: persist}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
