package maintenance_test

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"

	mntwf "github.com/svcplatform/svc/workflows/maintenance"
	"github.com/svcplatform/svc/workflows/workflowtest"
)

// TestRetentionRunsEachPruneInOrderInBatches: prunes run in the given order, each batch after
// batch until one is not full or the bound is reached, with the cut-off its window before the
// run's start.
func TestRetentionRunsEachPruneInOrderInBatches(t *testing.T) {
	env := workflowtest.NewEnv()
	start := env.Now()
	type call struct {
		activity string
		in       mntwf.PruneInput
	}
	var calls []call
	// Deliveries: two full batches then a short one; events: always full (stops at the bound);
	// idempotency: nothing to do.
	answers := map[string][]int64{
		mntwf.ActivityPruneDeliveries:  {10, 10, 3},
		mntwf.ActivityPruneEvents:      {10, 10, 10, 10, 10},
		mntwf.ActivityPruneIdempotency: {0},
	}
	for _, name := range []string{mntwf.ActivityPruneDeliveries, mntwf.ActivityPruneEvents, mntwf.ActivityPruneIdempotency} {
		env.RegisterActivityWithOptions(func(_ context.Context, in mntwf.PruneInput) (int64, error) {
			calls = append(calls, call{name, in})
			a := answers[name]
			n := a[0]
			answers[name] = a[1:]
			return n, nil
		}, activity.RegisterOptions{Name: name})
	}
	env.ExecuteWorkflow(mntwf.Retention, mntwf.RetentionInput{Batch: 10, MaxBatches: 4, Prunes: []mntwf.Prune{
		{Activity: mntwf.ActivityPruneDeliveries, Window: 30 * 24 * time.Hour},
		{Activity: mntwf.ActivityPruneEvents, Window: 30 * 24 * time.Hour},
		{Activity: mntwf.ActivityPruneIdempotency},
	}})
	got := workflowtest.Result[mntwf.RetentionResult](t, env)
	want := map[string]int64{mntwf.ActivityPruneDeliveries: 23, mntwf.ActivityPruneEvents: 40, mntwf.ActivityPruneIdempotency: 0}
	workflowtest.SameJSON(t, "deleted", got.Deleted, want)
	var order []string
	for _, c := range calls {
		order = append(order, c.activity)
		if c.in.Limit != 10 {
			t.Errorf("%s called with limit %d, want the batch of 10", c.activity, c.in.Limit)
		}
	}
	workflowtest.SameJSON(t, "calls", order, []string{
		mntwf.ActivityPruneDeliveries, mntwf.ActivityPruneDeliveries, mntwf.ActivityPruneDeliveries,
		mntwf.ActivityPruneEvents, mntwf.ActivityPruneEvents, mntwf.ActivityPruneEvents, mntwf.ActivityPruneEvents,
		mntwf.ActivityPruneIdempotency,
	})
	if d := start.Add(-30 * 24 * time.Hour).Sub(calls[0].in.Before); d < -time.Second || d > time.Second {
		t.Errorf("deliveries cut-off %v, want 30 days before %v", calls[0].in.Before, start)
	}
	if last := calls[len(calls)-1].in.Before; last.Sub(start) > time.Second || start.Sub(last) > time.Second {
		t.Errorf("idempotency cut-off %v, want the run's start %v (records expire by their own clock)", last, start)
	}
}
