package screening

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/workflows/workflowtest"
)

// monitored is an in-memory stand-in for the monitored customers the batch activity walks
// in id order, counting how often each customer is screened; failAt makes one batch fail once,
// as a worker killed in the middle of it would.
type monitored struct {
	mu       sync.Mutex
	ids      []string
	screened map[string]int
	failAt   string
	failed   bool
}

func (m *monitored) batch(_ context.Context, in RescreenBatchInput) (RescreenBatchResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if in.After == m.failAt && !m.failed {
		m.failed = true
		return RescreenBatchResult{}, errors.New("worker lost")
	}
	i := sort.SearchStrings(m.ids, in.After)
	if i < len(m.ids) && m.ids[i] == in.After {
		i++
	}
	end := min(i+in.Limit, len(m.ids))
	res := RescreenBatchResult{Count: end - i, Total: int64(len(m.ids))}
	for _, id := range m.ids[i:end] {
		m.screened[id]++
		res.Last = id
		if id[len(id)-3:] == "000" { // one customer in a thousand matches the delta
			res.Matched++
			res.Alerts++
		}
	}
	return res, nil
}

// A rescreen of 100,000 monitored customers runs in batches, continues as new every
// batchesPerRun batches carrying its progress, survives a batch lost half-way, and screens
// every customer exactly once (the runs are chained here as the server chains them).
func TestRescreenOf100kContinuesAsNewAndScreensEachOnce(t *testing.T) {
	const customers, batch = 100_000, 500
	m := &monitored{screened: map[string]int{}}
	for i := range customers {
		m.ids = append(m.ids, fmt.Sprintf("cus_%06d", i))
	}
	m.failAt = m.ids[60_000-1]

	in := RescreenInput{ListID: "lst_1", Version: 2, Batch: batch}
	runs := 0
	for {
		runs++
		env := workflowtest.NewEnv()
		env.RegisterWorkflowWithOptions(Rescreen, workflow.RegisterOptions{Name: RescreenName})
		env.RegisterActivityWithOptions(m.batch, activity.RegisterOptions{Name: ActivityRescreenBatch})
		env.ExecuteWorkflow(Rescreen, in)
		if !env.IsWorkflowCompleted() {
			t.Fatal("run did not complete")
		}
		err := env.GetWorkflowError()
		var can *workflow.ContinueAsNewError
		if err == nil {
			break
		}
		if !errors.As(err, &can) {
			t.Fatalf("run %d: %v", runs, err)
		}
		next := decodeRescreenInput(t, can)
		if next.State == nil || next.State.Batches != runs*batchesPerRun {
			t.Fatalf("run %d continued with %+v", runs, next.State)
		}
		in = next
		if runs > 10 {
			t.Fatal("too many runs")
		}
	}
	if runs != customers/batch/batchesPerRun+1 {
		t.Errorf("%d runs, want %d", runs, customers/batch/batchesPerRun+1)
	}
	if !m.failed {
		t.Error("the lost batch was never tried")
	}
	if len(m.screened) != customers {
		t.Fatalf("%d customers screened, want %d", len(m.screened), customers)
	}
	for id, n := range m.screened {
		if n != 1 {
			t.Fatalf("%s screened %d times", id, n)
		}
	}
}

// decodeRescreenInput reads the input a run continued as new with.
func decodeRescreenInput(t *testing.T, can *workflow.ContinueAsNewError) RescreenInput {
	t.Helper()
	var next RescreenInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	return next
}
