package worker

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	hookacts "github.com/svcplatform/svc/activities/webhooks"
	"github.com/svcplatform/svc/workflows"
	hookwf "github.com/svcplatform/svc/workflows/webhooks"
)

// registerWebhooks registers the delivery ladder and its attempts, publishing (every
// product's PublishEvent runs here) and the Schedule of the stranded-delivery sweep. It returns the activities, which the other products
// publish their events with.
func registerWebhooks(q map[string]sdkworker.Worker, c client.Client, d Deps) (*hookacts.Activities, error) {
	hooks, err := hookacts.New(d.Config, d.Store, c, d.Logger)
	if err != nil {
		return nil, err
	}
	wh := q[workflows.QueueWebhooks]
	wh.RegisterWorkflowWithOptions(hookwf.WebhookDelivery, workflow.RegisterOptions{Name: hookwf.WebhookDeliveryName})
	wh.RegisterActivityWithOptions(hooks.AttemptWebhookDelivery, activity.RegisterOptions{Name: hookwf.ActivityAttemptWebhookDelivery})
	wh.RegisterActivityWithOptions(hooks.DropWebhookDelivery, activity.RegisterOptions{Name: hookwf.ActivityDropWebhookDelivery})
	wh.RegisterActivityWithOptions(hooks.PublishEvent, activity.RegisterOptions{Name: workflows.ActivityPublishEvent})
	wh.RegisterWorkflowWithOptions(hookwf.WebhookSweep, workflow.RegisterOptions{Name: hookwf.SweepName})
	wh.RegisterActivityWithOptions(hooks.SweepStranded, activity.RegisterOptions{Name: hookwf.ActivitySweepStranded})
	ensureSchedules(c, d.Logger, schedule{id: hookwf.SweepScheduleID, workflow: hookwf.SweepName, queue: workflows.QueueWebhooks,
		every: hookwf.SweepEvery, arg: hookwf.SweepInput{Grace: hookwf.SweepGrace + d.Config.Webhooks.ReceiverTimeout, Batch: hookwf.SweepBatch},
		unless: "deliveries whose publisher died before their first attempt are not sent"})
	return hooks, nil
}
