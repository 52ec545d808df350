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

// registerWebhooks registers the delivery ladder and its attempts, and publishing: every
// product's PublishEvent runs here. It returns the activities, which the other products
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
	return hooks, nil
}
