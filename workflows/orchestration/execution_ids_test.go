package orchestration

import (
	"reflect"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/ids"
)

// recordedIDs runs definition starting at start and returns the ids the run wrote: each
// node's step, each approval, each event.
func recordedIDs(t *testing.T, definition string, start time.Time) (steps map[string]string, approvals, evs []string) {
	t.Helper()
	env, f := newExecution(t, definition)
	env.SetStartTime(start)
	env.ExecuteWorkflow(ExecutionWorkflowName, testInput)
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	steps = map[string]string{}
	for _, s := range f.steps {
		steps[s.NodeID] = s.StepID
	}
	for _, a := range f.approvals {
		approvals = append(approvals, a.ApprovalID)
	}
	for _, e := range f.events {
		evs = append(evs, e.EventID)
	}
	return steps, approvals, evs
}

// A run names its steps, approvals and events by the execution, node and event alone: the
// same run reaching the same points at other times writes the same ids. That is what lets a
// local activity re-run after a lost workflow task (a killed worker) find the rows it wrote
// instead of adding a second step for a node (VersionStableIDs).
func TestExecutionIDsDoNotDependOnTime(t *testing.T) {
	for name, def := range map[string]string{
		"linear":   linearDef,
		"approval": approvalDef(`{"approve": "pay"}`, `, "timeout": "48h", "onTimeout": "reject"`),
	} {
		t.Run(name, func(t *testing.T) {
			s1, a1, e1 := recordedIDs(t, def, time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
			s2, a2, e2 := recordedIDs(t, def, time.Date(2026, 7, 9, 17, 30, 0, 0, time.UTC))
			if !reflect.DeepEqual(s1, s2) || !reflect.DeepEqual(a1, a2) || !reflect.DeepEqual(e1, e2) || len(s1) == 0 || len(e1) == 0 {
				t.Fatalf("ids moved with the clock:\n steps %v / %v\n approvals %v / %v\n events %v / %v", s1, s2, a1, a2, e1, e2)
			}
			for node, id := range s1 {
				if id != ids.Within(ids.Step, testInput.ExecutionID, node) {
					t.Errorf("step of %s = %s", node, id)
				}
			}
			if name == "approval" && (len(a1) != 1 || a1[0] != ids.Within(ids.Approval, testInput.ExecutionID, "review")) {
				t.Errorf("approvals = %v", a1)
			}
		})
	}
}
