package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
)

// ActivityPublishEvent is the registered name of activities/webhooks.Activities.PublishEvent.
const ActivityPublishEvent = "PublishEvent"

// PublishEventInput is one event to publish. The publishing workflow fills it
// deterministically (see PublishEvent), so a retried activity writes the same event.
type PublishEventInput struct {
	// EventID is the evt_ id, from events.DeriveID.
	EventID string
	// Event is the catalog name.
	Event string
	// OrgID owns the event.
	OrgID string
	// OccurredAt is the workflow time of the event.
	OccurredAt time.Time
	// Data holds the event's data keys (events catalog).
	Data map[string]any
}

// PublishEventResult names what a publish wrote.
type PublishEventResult struct {
	EventID     string
	DeliveryIDs []string
}

// PublishEvent publishes one event from workflow code (any queue; the activity
// runs on the webhooks queue): it derives the event id
// from the workflow id, key (unique within the workflow for this event, e.g. a
// step id) and event name, stamps it with workflow.Now, and runs the
// PublishEvent activity (which writes the event once, one delivery per
// subscription that wants it, and starts their WebhookDelivery workflows).
// Call it with the same key on replay and the event keeps its id.
func PublishEvent(ctx workflow.Context, orgID, name, key string, data map[string]any) (PublishEventResult, error) {
	in := EventInput(ctx, orgID, workflow.GetInfo(ctx).WorkflowExecution.ID, name, key, data)
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           QueueWebhooks, // one registration, whichever product publishes
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         BookkeepingRetry(ErrTypeInvalidEvent),
	})
	var out PublishEventResult
	err := workflow.ExecuteActivity(ctx, ActivityPublishEvent, in).Get(ctx, &out)
	return out, err
}

// EventInput prepares one event for an activity to publish: its evt_ id derives from seed
// (the record the workflow runs for), key and name, and its time is the workflow's, so a
// retried activity or a replay publishes the same event.
func EventInput(ctx workflow.Context, orgID, seed, name, key string, data map[string]any) PublishEventInput {
	now := workflow.Now(ctx).UTC().Truncate(time.Millisecond)
	return PublishEventInput{
		EventID: events.DeriveID(now, seed, key, name), Event: name, OrgID: orgID, OccurredAt: now, Data: data,
	}
}

// VersionStableIDs is the workflow.GetVersion change of every workflow whose bookkeeping runs
// as local activities: from it on, the records and events those activities write are named
// without workflow.Now. A local activity runs inside its workflow task; when a worker dies after
// the activity wrote but before the task completed, the task runs again at another
// workflow.Now, and a time-derived id named a second record or event for the same thing. Runs
// recorded before it keep their ids (DefaultVersion), so their histories replay unchanged.
const VersionStableIDs = "stable-ids"

// StableIDs reports whether this run names its records and events without workflow.Now
// (VersionStableIDs); call it once, before the run's first bookkeeping.
func StableIDs(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, VersionStableIDs, workflow.DefaultVersion, 1) >= 1
}

// RunEventInput is stableEventInput in runs of VersionStableIDs and EventInput before.
func RunEventInput(ctx workflow.Context, stable bool, orgID, seed, name, key string, data map[string]any) PublishEventInput {
	if stable {
		return stableEventInput(ctx, orgID, seed, name, key, data)
	}
	return EventInput(ctx, orgID, seed, name, key, data)
}

// stableEventInput is EventInput for events published by a local activity: the id derives
// from seed, key and name alone (with seed's time part, ids.Within), not from workflow.Now,
// which differs when a workflow task that ran the activity is lost and runs again; the first
// write of the event wins (its occurredAt included).
func stableEventInput(ctx workflow.Context, orgID, seed, name, key string, data map[string]any) PublishEventInput {
	in := EventInput(ctx, orgID, seed, name, key, data)
	in.EventID = ids.Within(ids.Event, seed, key, name)
	return in
}

// BookkeepingRetry is the retry policy of the bookkeeping activities (store writes and their
// events): retried until they succeed, except for the error types given, which retrying
// cannot mend.
func BookkeepingRetry(nonRetryable ...string) *temporal.RetryPolicy {
	return &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute, NonRetryableErrorTypes: nonRetryable}
}

// BookkeepingLocal sets the options of a product's bookkeeping activities (store writes and
// the events they publish) run as local activities: retried until they succeed, except for
// events the catalog refuses and the error types nonRetryable names.
func BookkeepingLocal(ctx workflow.Context, summary string, nonRetryable ...string) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         BookkeepingRetry(append([]string{ErrTypeInvalidEvent}, nonRetryable...)...),
		Summary:             summary,
	})
}

// ErrTypeInvalidEvent is the application error type of an event the catalog
// rejects (unknown name, missing or unknown data keys); it is not retried.
const ErrTypeInvalidEvent = "InvalidEvent"

// OrNull is events.OrNull, for the workflows that build event data.
func OrNull(s string) any { return events.OrNull(s) }
