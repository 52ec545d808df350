// Package webhooks is the webhooks product's API: subscriptions, their secrets, test sends and
// the delivery log (SPEC 6).
package webhooks

import (
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"

	hookacts "github.com/svcplatform/svc/activities/webhooks"
	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/store"
)

// Deps are what the webhooks API needs.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	// Temporal starts the delivery workflows of test sends and redeliveries.
	Temporal client.Client
	Logger   *slog.Logger
	// Now is the clock.
	Now func() time.Time
}

// Handler serves the webhooks product's endpoints.
type Handler struct {
	Deps
	// hooks seals subscription secrets, checks target URLs and starts deliveries; nil, with
	// hooksErr saying why, when config lacks secrets.key: the endpoints then answer 503.
	hooks    *hookacts.Activities
	hooksErr error
}

// New builds the webhooks API; its machinery comes from config (hookacts.New).
func New(d Deps) *Handler {
	h := &Handler{Deps: d}
	h.hooks, h.hooksErr = hookacts.New(d.Config, d.Store, d.Temporal, d.Logger)
	return h
}

// Routes are the webhooks product's rows of the route table.
func (h *Handler) Routes() []api.Route {
	return api.ForProduct(auth.ProductWebhooks, []api.Route{
		{Method: "POST", Path: "/api/webhooks", Scope: "webhooks:manage", Body: api.BodyJSON, Summary: "subscribe a URL to events (its signing secret is shown once)", Handler: h.createWebhook},
		{Method: "GET", Path: "/api/webhooks", Scope: "webhooks:view", Summary: "list webhook subscriptions", Handler: h.listWebhooks},
		{Method: "GET", Path: "/api/webhooks/:id", Scope: "webhooks:view", Summary: "get a webhook subscription (never its secret)", Handler: h.getWebhook},
		{Method: "PATCH", Path: "/api/webhooks/:id", Scope: "webhooks:manage", Body: api.BodyJSON, Summary: "change a subscription's url, events or active flag", Handler: h.updateWebhook},
		{Method: "DELETE", Path: "/api/webhooks/:id", Scope: "webhooks:manage", Summary: "delete a webhook subscription and its delivery log", Handler: h.deleteWebhook},
		{Method: "POST", Path: "/api/webhooks/:id/rotate-secret", Scope: "webhooks:manage", Summary: "give a subscription a new signing secret (shown once)", Handler: h.rotateWebhookSecret},
		{Method: "POST", Path: "/api/webhooks/:id/test", Scope: "webhooks:manage", Summary: "send webhook.test to the subscription", Handler: h.testWebhook},
		{Method: "GET", Path: "/api/webhooks/:id/deliveries", Scope: "webhooks:view", Summary: "the subscription's delivery log (last 200), newest first", Handler: h.listDeliveries},
		{Method: "GET", Path: "/api/webhooks/:id/deliveries/:deliveryId", Scope: "webhooks:view", Summary: "one delivery with every attempt", Handler: h.getDelivery},
		{Method: "POST", Path: "/api/webhooks/:id/deliveries/:deliveryId/redeliver", Scope: "webhooks:manage", Summary: "deliver the same event again through the whole ladder", Handler: h.redeliver},
	})
}
