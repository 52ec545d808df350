// Package workflowtest helps the products' workflow tests: a quiet time-skipping test
// environment, results, event checks and the replay of recorded histories.
package workflowtest

import (
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/workflows"
)

// NewEnv is a time-skipping workflow test environment whose logs are discarded.
func NewEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	return s.NewTestWorkflowEnvironment()
}

// Result returns the workflow's result, failing the test if it did not succeed.
func Result[T any](t *testing.T, env *testsuite.TestWorkflowEnvironment) T {
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

// CheckedEvent appends ev to evs, failing the test if ev is not in the event catalog.
func CheckedEvent(t *testing.T, evs []workflows.PublishEventInput, ev workflows.PublishEventInput) []workflows.PublishEventInput {
	if _, err := events.NewEnvelope(ev.EventID, ev.Event, ev.OrgID, ev.OccurredAt, ev.Data); err != nil {
		t.Errorf("event off the catalog: %v", err)
	}
	return append(evs, ev)
}

// Names lists the names of evs, in order.
func Names(evs []workflows.PublishEventInput) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Event)
	}
	return out
}

// ReplayHistories replays each recorded history in dir matching pattern with the workflows
// register registers, failing when fewer than want are recorded.
func ReplayHistories(t *testing.T, dir, pattern string, want int, register func(worker.WorkflowReplayer)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < want {
		t.Fatalf("%d recorded histories %s in %s/, want %d", len(files), pattern, dir, want)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			register(r)
			if err := r.ReplayWorkflowHistoryFromJSONFile(log.NewStructuredLogger(slog.New(slog.DiscardHandler)), file); err != nil {
				t.Fatalf("replay %s: %v", file, err)
			}
		})
	}
}

// SameJSON fails the test when got and want do not marshal to the same JSON.
func SameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s = %s\nwant %s", what, g, w)
	}
}
