package workflows_test

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/workflows"
	"github.com/svcplatform/svc/workflows/workflowtest"
)

func publishTwice(ctx workflow.Context) ([]string, error) {
	var out []string
	for _, key := range []string{"stp_1", "stp_2"} {
		res, err := workflows.PublishEvent(ctx, "org_1", events.WorkflowStepCompleted, key,
			map[string]any{"executionId": "exe_1", "stepId": key, "nodeId": "n", "output": nil})
		if err != nil {
			return nil, err
		}
		out = append(out, res.EventID)
	}
	return out, nil
}

func TestPublishEventDerivesStableIDs(t *testing.T) {
	run := func() ([]string, []workflows.PublishEventInput) {
		env := workflowtest.NewEnv()
		env.SetStartTime(time.Date(2026, 1, 2, 3, 4, 5, 678_900_000, time.UTC))
		var got []workflows.PublishEventInput
		env.RegisterWorkflow(publishTwice)
		env.RegisterActivityWithOptions(func(ctx context.Context, in workflows.PublishEventInput) (workflows.PublishEventResult, error) {
			if q := activity.GetInfo(ctx).TaskQueue; q != workflows.QueueWebhooks {
				t.Errorf("publish activity on queue %q, want %q", q, workflows.QueueWebhooks)
			}
			got = append(got, in)
			return workflows.PublishEventResult{EventID: in.EventID}, nil
		}, activity.RegisterOptions{Name: workflows.ActivityPublishEvent})
		env.ExecuteWorkflow(publishTwice)
		var idsOut []string
		if err := env.GetWorkflowResult(&idsOut); err != nil {
			t.Fatal(err)
		}
		return idsOut, got
	}
	a, inputs := run()
	b, _ := run()
	if len(a) != 2 || a[0] == a[1] || a[0] != b[0] || a[1] != b[1] {
		t.Fatalf("ids %v then %v: want two distinct ids, the same on every run", a, b)
	}
	for _, in := range inputs {
		if !ids.Valid(ids.Event, in.EventID) || in.OrgID != "org_1" || in.Event != events.WorkflowStepCompleted ||
			!in.OccurredAt.Equal(time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)) {
			t.Errorf("input %+v", in)
		}
	}
}
