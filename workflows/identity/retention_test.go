package identity_test

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"

	idvwf "github.com/svcplatform/svc/workflows/identity"
	"github.com/svcplatform/svc/workflows/workflowtest"
)

// TestRetentionPurgesInBatches: the run purges batch after batch until one is not full, with
// the cut-off retention before the run's start.
func TestRetentionPurgesInBatches(t *testing.T) {
	env := workflowtest.NewEnv()
	start := env.Now()
	var calls []idvwf.PurgeInput
	env.RegisterActivityWithOptions(func(_ context.Context, in idvwf.PurgeInput) (idvwf.PurgeResult, error) {
		calls = append(calls, in)
		if len(calls) == 1 {
			return idvwf.PurgeResult{Attempts: idvwf.PurgeBatch, Images: 150}, nil
		}
		return idvwf.PurgeResult{Attempts: 3, Images: 2}, nil
	}, activity.RegisterOptions{Name: idvwf.ActivityPurge})
	env.ExecuteWorkflow(idvwf.Retention, idvwf.RetentionInput{Retention: 90 * 24 * time.Hour})
	got := workflowtest.Result[idvwf.PurgeResult](t, env)
	if got.Attempts != idvwf.PurgeBatch+3 || got.Images != 152 || len(calls) != 2 {
		t.Fatalf("purged %+v in %d calls", got, len(calls))
	}
	if d := start.Add(-90 * 24 * time.Hour).Sub(calls[0].Before); d < -time.Second || d > time.Second || calls[0].Limit != idvwf.PurgeBatch {
		t.Errorf("purge input %+v (start %s)", calls[0], start)
	}
}
