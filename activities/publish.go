// Package activities holds what every product's activities share; each product's activities
// (its side effects, idempotent) live in activities/<product>.
package activities

import (
	"context"
	"errors"

	"github.com/svcplatform/svc/workflows"
)

// Publisher publishes one event, once per event id; the webhooks product's activities are one.
type Publisher interface {
	PublishEvent(ctx context.Context, in workflows.PublishEventInput) (workflows.PublishEventResult, error)
}

// Publish publishes ev with p, the Publisher of the named product's activities.
func Publish(ctx context.Context, p Publisher, product string, ev workflows.PublishEventInput) error {
	if p == nil {
		return errors.New(product + " activities: no event publisher configured")
	}
	_, err := p.PublishEvent(ctx, ev)
	return err
}
