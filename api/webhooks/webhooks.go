package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/svcplatform/svc/api"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/netguard"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/webhook"
)

// Webhook subscriptions and their delivery log (SPEC 2.3, 2.4, 4.1, 6). Secrets are shown by
// create and rotate-secret only; deliveries run as WebhookDelivery workflows that the worker
// executes (hookacts.Activities), which the test and redeliver endpoints start.

// maxWebhookURL is the longest target URL accepted (the store column's size).
const maxWebhookURL = 2048

// maxWebhookEvents caps the event names of one subscription (the catalog and "*" fit easily).
const maxWebhookEvents = 50

// webhookView is a subscription as the API shows it: never its secret.
type webhookView struct {
	ID        string   `json:"id"`
	URL       string   `json:"url"`
	Events    []string `json:"events"`
	Active    bool     `json:"active"`
	CreatedAt string   `json:"createdAt"`
	UpdatedAt string   `json:"updatedAt"`
}

// webhookSecretView is a subscription with its signing secret, shown by create and rotation only.
type webhookSecretView struct {
	webhookView
	Secret string `json:"secret"`
}

// issuedWebhookView carries the subscription both ways the contracts place it (SPEC 4.1):
// {webhook: {…}} and its fields directly in data.
type issuedWebhookView struct {
	Webhook webhookSecretView `json:"webhook"`
	webhookSecretView
}

func newWebhookView(w *store.WebhookSubscription) webhookView {
	return webhookView{ID: w.ID, URL: w.URL, Events: api.NonNil(w.Events), Active: w.Active,
		CreatedAt: api.Timestamp(w.CreatedAt), UpdatedAt: api.Timestamp(w.UpdatedAt)}
}

func newIssuedWebhookView(w *store.WebhookSubscription, secret string) issuedWebhookView {
	v := webhookSecretView{webhookView: newWebhookView(w), Secret: secret}
	return issuedWebhookView{Webhook: v, webhookSecretView: v}
}

// deliveryView is one delivery of the log.
type deliveryView struct {
	ID        string `json:"id"`
	WebhookID string `json:"webhookId"`
	EventID   string `json:"eventId"`
	Event     string `json:"event"`
	Status    string `json:"status"`
	// Attempt is the number of the last attempt made: the attempt count, 0 before the first.
	Attempt        int     `json:"attempt"`
	LastStatusCode *int    `json:"lastStatusCode"`
	LastLatencyMs  *int64  `json:"lastLatencyMs"`
	LastError      *string `json:"lastError"`
	NextAttemptAt  *string `json:"nextAttemptAt"`
	CreatedAt      string  `json:"createdAt"`
	UpdatedAt      string  `json:"updatedAt"`
}

// attemptView is one attempt of a delivery.
type attemptView struct {
	Attempt     int    `json:"attempt"`
	AttemptedAt string `json:"attemptedAt"`
	// StatusCode is null when the receiver did not answer (see error).
	StatusCode        *int    `json:"statusCode"`
	LatencyMs         int64   `json:"latencyMs"`
	ResponseBody      string  `json:"responseBody"`
	Error             *string `json:"error"`
	RetryAfterSeconds *int    `json:"retryAfterSeconds"`
}

// deliveryDetailView is a delivery with every attempt, oldest first.
type deliveryDetailView struct {
	deliveryView
	Attempts []attemptView `json:"attempts"`
}

// positive shows 0 (no answer, none given) as JSON null.
func positive[T int | int64](v T) *T {
	if v <= 0 {
		return nil
	}
	return &v
}

func newDeliveryView(d *store.Delivery) deliveryView {
	v := deliveryView{
		ID: d.ID, WebhookID: d.SubscriptionID, EventID: d.EventID, Event: d.EventName, Status: string(d.Status),
		Attempt: d.Attempts, LastStatusCode: positive(d.LastStatusCode), LastError: api.Nullable(d.LastError),
		NextAttemptAt: api.TimestampPtr(d.NextAttemptAt), CreatedAt: api.Timestamp(d.CreatedAt), UpdatedAt: api.Timestamp(d.UpdatedAt),
	}
	if d.Attempts > 0 {
		ms := d.LastLatencyMs
		v.LastLatencyMs = &ms
	}
	return v
}

func newAttemptView(a *store.DeliveryAttempt) attemptView {
	return attemptView{
		Attempt: a.Attempt, AttemptedAt: api.Timestamp(a.AttemptedAt), StatusCode: positive(a.StatusCode), LatencyMs: a.LatencyMs,
		ResponseBody: a.ResponseBody, Error: api.Nullable(a.Error), RetryAfterSeconds: positive(a.RetryAfterSeconds),
	}
}

// webhookRequest is the body of create (url and events required) and update (every field optional).
type webhookRequest struct {
	URL    *string   `json:"url"`
	Events *[]string `json:"events"`
	Active *bool     `json:"active"`
}

// check validates the fields present; create requires url and events.
func (h *Handler) checkWebhookRequest(req *webhookRequest, create bool) api.FieldErrors {
	fe := api.FieldErrors{}
	if req.URL == nil && create {
		fe.Add("url", "is required")
	}
	if req.URL != nil {
		u := strings.TrimSpace(*req.URL)
		*req.URL = u
		if msg := h.webhookURLProblem(u); msg != "" {
			fe.Add("url", msg)
		}
	}
	if req.Events == nil && create {
		fe.Add("events", "is required")
	}
	if req.Events != nil {
		names := *req.Events
		switch {
		case len(names) == 0:
			fe.Add("events", "must name at least one event")
		case len(names) > maxWebhookEvents:
			fe.Add("events", fmt.Sprintf("must name at most %d events", maxWebhookEvents))
		}
		for _, n := range names {
			if !events.Subscribable(n) {
				fe.Add("events", "unknown event "+api.Quote(n)+`: use names of the event catalog, or "*" for every event that is on by default`)
			}
		}
	}
	return fe
}

// webhookURLProblem says what is wrong with a target URL, or "" when it may be saved. Host names
// are checked again whenever they are dialled (netguard), as DNS can change.
func (h *Handler) webhookURLProblem(u string) string {
	if u == "" {
		return "is required"
	}
	if len(u) > maxWebhookURL {
		return fmt.Sprintf("must be at most %d characters", maxWebhookURL)
	}
	if h.hooks == nil {
		return "" // the create/update handler answers 503 before saving
	}
	err := h.hooks.Guard.CheckURL(u)
	var addr *netguard.AddressError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &addr):
		return fmt.Sprintf("must not point to an internal address (%s is %s)", addr.Addr, addr.Reason)
	case errors.Is(err, netguard.ErrInsecureScheme) && h.Config.Environment == "live":
		return "must be an https URL in the live environment"
	case errors.Is(err, netguard.ErrInsecureScheme):
		return "must be an absolute http or https URL"
	default:
		return "must be an absolute URL with a host and without user info"
	}
}

// webhooksAvailable answers 503 when the webhook machinery could not be built (no secrets.key).
func (h *Handler) webhooksAvailable(c *gin.Context) bool {
	if h.hooks == nil {
		api.Logger(c).Error("webhooks unavailable", "error", h.hooksErr)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return false
	}
	return true
}

// createWebhook subscribes a URL to events and shows its secret this once. Not idempotent: the
// secret is never stored in clear, so an answer cannot be replayed.
func (h *Handler) createWebhook(c *gin.Context) {
	var req webhookRequest
	if !api.BindJSON(c, &req) {
		return
	}
	if fe := h.checkWebhookRequest(&req, true); fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	if !h.webhooksAvailable(c) {
		return
	}
	active := req.Active == nil || *req.Active
	w, secret, err := h.Store.Webhooks.Create(c.Request.Context(), h.hooks.Box, api.PrincipalOf(c).OrgID, *req.URL, *req.Events, active)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.Created(c, newIssuedWebhookView(w, secret))
}

// listWebhooks pages through the organisation's subscriptions, newest first; q matches the URL.
func (h *Handler) listWebhooks(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Filters: []string{api.FilterQ}})
	if !ok {
		return
	}
	rows, total, err := h.Store.Webhooks.List(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Page, q.Filter)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.ListRows(c, rows, total, q, newWebhookView, nil)
}

// loadWebhook loads the path's subscription of the caller's organisation, answering 404 when there is none.
func (h *Handler) loadWebhook(c *gin.Context) (*store.WebhookSubscription, bool) {
	w, err := h.Store.Webhooks.Get(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	return w, api.Loaded(c, err)
}

// getWebhook answers one subscription, without its secret.
func (h *Handler) getWebhook(c *gin.Context) {
	if w, ok := h.loadWebhook(c); ok {
		api.OK(c, newWebhookView(w))
	}
}

// updateWebhook changes a subscription's url, events or active flag.
func (h *Handler) updateWebhook(c *gin.Context) {
	var req webhookRequest
	if !api.BindJSON(c, &req) {
		return
	}
	w, ok := h.loadWebhook(c)
	if !ok {
		return
	}
	if fe := h.checkWebhookRequest(&req, false); fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	if req.URL != nil && !h.webhooksAvailable(c) {
		return
	}
	patch := store.WebhookPatch{URL: req.URL, Active: req.Active}
	if req.Events != nil {
		patch.Events = *req.Events
	}
	w, err := h.Store.Webhooks.Update(c.Request.Context(), w.OrgID, w.ID, patch)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.OK(c, newWebhookView(w))
}

// deleteWebhook deletes a subscription and its delivery log; deliveries still in flight are
// dropped at their next attempt.
func (h *Handler) deleteWebhook(c *gin.Context) {
	if api.Loaded(c, h.Store.Webhooks.Delete(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))) {
		api.NoContent(c)
	}
}

// rotateWebhookSecret gives a subscription a new secret, shown this once; every attempt from now
// on, including retries of earlier deliveries, is signed with it.
func (h *Handler) rotateWebhookSecret(c *gin.Context) {
	w, ok := h.loadWebhook(c)
	if !ok || !h.webhooksAvailable(c) {
		return
	}
	secret, err := h.Store.Webhooks.RotateSecret(c.Request.Context(), h.hooks.Box, w.OrgID, w.ID)
	if err == nil {
		w, err = h.Store.Webhooks.Get(c.Request.Context(), w.OrgID, w.ID)
	}
	if api.Loaded(c, err) { // 404 when deleted meanwhile
		api.OK(c, newIssuedWebhookView(w, secret))
	}
}

// testWebhook sends webhook.test (data.source "test") to the subscription through the ladder and
// answers 202 with the delivery to poll.
func (h *Handler) testWebhook(c *gin.Context) {
	w, ok := h.loadWebhook(c)
	if !ok || !h.webhooksAvailable(c) {
		return
	}
	d, err := h.Store.Webhooks.CreateTestDelivery(c.Request.Context(), w.OrgID, w.ID, h.Now())
	if err != nil {
		api.Internal(c, err)
		return
	}
	h.startDelivery(c, d)
}

// redeliver makes a new delivery of a delivery's event (same event id and body) through the
// whole ladder, and answers 202 with it.
func (h *Handler) redeliver(c *gin.Context) {
	w, ok := h.loadWebhook(c)
	if !ok || !h.webhooksAvailable(c) {
		return
	}
	d, err := h.Store.Webhooks.Redeliver(c.Request.Context(), w.OrgID, w.ID, c.Param("deliveryId"))
	if api.Loaded(c, err) {
		h.startDelivery(c, d)
	}
}

// startDelivery starts a stored delivery's workflow and answers 202 with it. When Temporal cannot
// take it, the delivery is dropped (so the log does not show it pending forever) and the answer is 503.
func (h *Handler) startDelivery(c *gin.Context, d *store.Delivery) {
	if err := h.hooks.StartDelivery(c.Request.Context(), d.OrgID, d.ID); err != nil {
		api.Logger(c).Error("start webhook delivery", "deliveryId", d.ID, "error", err)
		ctx := context.WithoutCancel(c.Request.Context())
		if derr := h.Store.Webhooks.DropDelivery(ctx, d.OrgID, d.ID, "could not be scheduled: the workflow service is unavailable"); derr != nil {
			api.Logger(c).Error("drop unscheduled webhook delivery", "deliveryId", d.ID, "error", derr)
		}
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	api.Accepted(c, newDeliveryView(d))
}

// listDeliveries pages through a subscription's delivery log (the last store.DeliveryHistory),
// newest first; status filters by delivery status, from/to by creation time.
func (h *Handler) listDeliveries(c *gin.Context) {
	w, ok := h.loadWebhook(c)
	if !ok {
		return
	}
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: store.DeliveryHistory, Cursor: true, Filters: []string{api.FilterStatus, api.FilterFrom, api.FilterTo},
		Statuses: []string{string(webhook.StatusPending), string(webhook.StatusDelivered), string(webhook.StatusFailed), string(webhook.StatusDropped)}})
	if !ok {
		return
	}
	rows, next, err := h.Store.Webhooks.ListDeliveries(c.Request.Context(), w.OrgID, w.ID, q.Cursor, q.Filter)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.CursorRows(c, rows, next, newDeliveryView, nil)
}

// getDelivery answers one delivery with every attempt.
func (h *Handler) getDelivery(c *gin.Context) {
	w, ok := h.loadWebhook(c)
	if !ok {
		return
	}
	d, err := h.Store.Webhooks.GetDelivery(c.Request.Context(), w.OrgID, w.ID, c.Param("deliveryId"))
	if !api.Loaded(c, err) {
		return
	}
	as, err := h.Store.Webhooks.DeliveryAttempts(c.Request.Context(), w.OrgID, d.ID)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.OK(c, deliveryDetailView{deliveryView: newDeliveryView(d), Attempts: api.Views(as, newAttemptView)})
}
