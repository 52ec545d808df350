package workflows

import (
	"log/slog"
	"testing"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/svcplatform/svc/events"
)

// newTestEnv is a time-skipping workflow test environment whose logs are discarded.
func newTestEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	return s.NewTestWorkflowEnvironment()
}

// workflowResult returns the workflow's result, failing the test if it did not succeed.
func workflowResult[T any](t *testing.T, env *testsuite.TestWorkflowEnvironment) T {
	t.Helper()
	var res T
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow failed: %v", err)
	}
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

// checkedEvent appends ev to evs, failing the test if ev is not in the event catalog.
func checkedEvent(t *testing.T, evs []PublishEventInput, ev PublishEventInput) []PublishEventInput {
	if _, err := events.NewEnvelope(ev.EventID, ev.Event, ev.OrgID, ev.OccurredAt, ev.Data); err != nil {
		t.Errorf("event off the catalog: %v", err)
	}
	return append(evs, ev)
}

// namesOf lists the names of evs, in order.
func namesOf(evs []PublishEventInput) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Event)
	}
	return out
}
