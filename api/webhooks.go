package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/events"
	"github.com/svcplatform/svc/netguard"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/webhook"
)

// Webhook subscriptions and their delivery log (SPEC 2.3, 2.4, 4.1, 6). Secrets are shown by
// create and rotate-secret only; deliveries run as WebhookDelivery workflows that the worker
// executes (activities.Webhooks), which the test and redeliver endpoints start.

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
	return webhookView{ID: w.ID, URL: w.URL, Events: nonNil(w.Events), Active: w.Active,
		CreatedAt: Timestamp(w.CreatedAt), UpdatedAt: Timestamp(w.UpdatedAt)}
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
		Attempt: d.Attempts, LastStatusCode: positive(d.LastStatusCode), LastError: nullable(d.LastError),
		NextAttemptAt: timestampPtr(d.NextAttemptAt), CreatedAt: Timestamp(d.CreatedAt), UpdatedAt: Timestamp(d.UpdatedAt),
	}
	if d.Attempts > 0 {
		ms := d.LastLatencyMs
		v.LastLatencyMs = &ms
	}
	return v
}

func newAttemptView(a *store.DeliveryAttempt) attemptView {
	return attemptView{
		Attempt: a.Attempt, AttemptedAt: Timestamp(a.AttemptedAt), StatusCode: positive(a.StatusCode), LatencyMs: a.LatencyMs,
		ResponseBody: a.ResponseBody, Error: nullable(a.Error), RetryAfterSeconds: positive(a.RetryAfterSeconds),
	}
}

// webhookRequest is the body of create (url and events required) and update (every field optional).
type webhookRequest struct {
	URL    *string   `json:"url"`
	Events *[]string `json:"events"`
	Active *bool     `json:"active"`
}

// check validates the fields present; create requires url and events.
func (s *Server) checkWebhookRequest(req *webhookRequest, create bool) FieldErrors {
	fe := FieldErrors{}
	if req.URL == nil && create {
		fe.Add("url", "is required")
	}
	if req.URL != nil {
		u := strings.TrimSpace(*req.URL)
		*req.URL = u
		if msg := s.webhookURLProblem(u); msg != "" {
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
				fe.Add("events", "unknown event "+quote(n)+`: use names of the event catalog, or "*" for every event that is on by default`)
			}
		}
	}
	return fe
}

// webhookURLProblem says what is wrong with a target URL, or "" when it may be saved. Host names
// are checked again whenever they are dialled (netguard), as DNS can change.
func (s *Server) webhookURLProblem(u string) string {
	if u == "" {
		return "is required"
	}
	if len(u) > maxWebhookURL {
		return fmt.Sprintf("must be at most %d characters", maxWebhookURL)
	}
	if s.hooks == nil {
		return "" // the create/update handler answers 503 before saving
	}
	err := s.hooks.Guard.CheckURL(u)
	var addr *netguard.AddressError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &addr):
		return fmt.Sprintf("must not point to an internal address (%s is %s)", addr.Addr, addr.Reason)
	case errors.Is(err, netguard.ErrInsecureScheme) && s.Config.Environment == "live":
		return "must be an https URL in the live environment"
	case errors.Is(err, netguard.ErrInsecureScheme):
		return "must be an absolute http or https URL"
	default:
		return "must be an absolute URL with a host and without user info"
	}
}

// webhooksAvailable answers 503 when the webhook machinery could not be built (no secrets.key).
func (s *Server) webhooksAvailable(c *gin.Context) bool {
	if s.hooks == nil {
		Logger(c).Error("webhooks unavailable", "error", s.hooksErr)
		Fail(c, http.StatusServiceUnavailable, ErrUnavailable)
		return false
	}
	return true
}

// createWebhook subscribes a URL to events and shows its secret this once. Not idempotent: the
// secret is never stored in clear, so an answer cannot be replayed.
func (s *Server) createWebhook(c *gin.Context) {
	var req webhookRequest
	if !BindJSON(c, &req) {
		return
	}
	if fe := s.checkWebhookRequest(&req, true); fe.Any() {
		ValidationFailed(c, fe)
		return
	}
	if !s.webhooksAvailable(c) {
		return
	}
	active := req.Active == nil || *req.Active
	w, secret, err := s.Store.CreateWebhook(c.Request.Context(), s.hooks.Box, PrincipalOf(c).OrgID, *req.URL, *req.Events, active)
	if err != nil {
		Internal(c, err)
		return
	}
	Created(c, newIssuedWebhookView(w, secret))
}

// listWebhooks pages through the organisation's subscriptions, newest first; q matches the URL.
func (s *Server) listWebhooks(c *gin.Context) {
	q, ok := ParseList(c, ListSpec{MaxLimit: 100, Filters: []string{FilterQ}})
	if !ok {
		return
	}
	rows, total, err := s.Store.ListWebhooks(c.Request.Context(), PrincipalOf(c).OrgID, q.Page, q.Filter)
	if err != nil {
		Internal(c, err)
		return
	}
	ListRows(c, rows, total, q, newWebhookView, nil)
}

// loadWebhook loads the path's subscription of the caller's organisation, answering 404 when there is none.
func (s *Server) loadWebhook(c *gin.Context) (*store.WebhookSubscription, bool) {
	w, err := s.Store.GetWebhook(c.Request.Context(), PrincipalOf(c).OrgID, PathID(c))
	return w, Loaded(c, err)
}

// getWebhook answers one subscription, without its secret.
func (s *Server) getWebhook(c *gin.Context) {
	if w, ok := s.loadWebhook(c); ok {
		OK(c, newWebhookView(w))
	}
}

// updateWebhook changes a subscription's url, events or active flag.
func (s *Server) updateWebhook(c *gin.Context) {
	var req webhookRequest
	if !BindJSON(c, &req) {
		return
	}
	w, ok := s.loadWebhook(c)
	if !ok {
		return
	}
	if fe := s.checkWebhookRequest(&req, false); fe.Any() {
		ValidationFailed(c, fe)
		return
	}
	if req.URL != nil && !s.webhooksAvailable(c) {
		return
	}
	patch := store.WebhookPatch{URL: req.URL, Active: req.Active}
	if req.Events != nil {
		patch.Events = *req.Events
	}
	w, err := s.Store.UpdateWebhook(c.Request.Context(), w.OrgID, w.ID, patch)
	if err != nil {
		Internal(c, err)
		return
	}
	OK(c, newWebhookView(w))
}

// deleteWebhook deletes a subscription and its delivery log; deliveries still in flight are
// dropped at their next attempt.
func (s *Server) deleteWebhook(c *gin.Context) {
	if Loaded(c, s.Store.DeleteWebhook(c.Request.Context(), PrincipalOf(c).OrgID, PathID(c))) {
		NoContent(c)
	}
}

// rotateWebhookSecret gives a subscription a new secret, shown this once; every attempt from now
// on, including retries of earlier deliveries, is signed with it.
func (s *Server) rotateWebhookSecret(c *gin.Context) {
	w, ok := s.loadWebhook(c)
	if !ok || !s.webhooksAvailable(c) {
		return
	}
	secret, err := s.Store.RotateWebhookSecret(c.Request.Context(), s.hooks.Box, w.OrgID, w.ID)
	if err == nil {
		w, err = s.Store.GetWebhook(c.Request.Context(), w.OrgID, w.ID)
	}
	if Loaded(c, err) { // 404 when deleted meanwhile
		OK(c, newIssuedWebhookView(w, secret))
	}
}

// testWebhook sends webhook.test (data.source "test") to the subscription through the ladder and
// answers 202 with the delivery to poll.
func (s *Server) testWebhook(c *gin.Context) {
	w, ok := s.loadWebhook(c)
	if !ok || !s.webhooksAvailable(c) {
		return
	}
	d, err := s.Store.CreateTestDelivery(c.Request.Context(), w.OrgID, w.ID, s.Now())
	if err != nil {
		Internal(c, err)
		return
	}
	s.startDelivery(c, d)
}

// redeliver makes a new delivery of a delivery's event (same event id and body) through the
// whole ladder, and answers 202 with it.
func (s *Server) redeliver(c *gin.Context) {
	w, ok := s.loadWebhook(c)
	if !ok || !s.webhooksAvailable(c) {
		return
	}
	d, err := s.Store.Redeliver(c.Request.Context(), w.OrgID, w.ID, c.Param("deliveryId"))
	if Loaded(c, err) {
		s.startDelivery(c, d)
	}
}

// startDelivery starts a stored delivery's workflow and answers 202 with it. When Temporal cannot
// take it, the delivery is dropped (so the log does not show it pending forever) and the answer is 503.
func (s *Server) startDelivery(c *gin.Context, d *store.Delivery) {
	if err := s.hooks.StartDelivery(c.Request.Context(), d.OrgID, d.ID); err != nil {
		Logger(c).Error("start webhook delivery", "deliveryId", d.ID, "error", err)
		ctx := context.WithoutCancel(c.Request.Context())
		if derr := s.Store.DropDelivery(ctx, d.OrgID, d.ID, "could not be scheduled: the workflow service is unavailable"); derr != nil {
			Logger(c).Error("drop unscheduled webhook delivery", "deliveryId", d.ID, "error", derr)
		}
		Fail(c, http.StatusServiceUnavailable, ErrUnavailable)
		return
	}
	Accepted(c, newDeliveryView(d))
}

// listDeliveries pages through a subscription's delivery log (the last store.DeliveryHistory),
// newest first; status filters by delivery status, from/to by creation time.
func (s *Server) listDeliveries(c *gin.Context) {
	w, ok := s.loadWebhook(c)
	if !ok {
		return
	}
	q, ok := ParseList(c, ListSpec{MaxLimit: store.DeliveryHistory, Cursor: true, Filters: []string{FilterStatus, FilterFrom, FilterTo},
		Statuses: []string{string(webhook.StatusPending), string(webhook.StatusDelivered), string(webhook.StatusFailed), string(webhook.StatusDropped)}})
	if !ok {
		return
	}
	rows, next, err := s.Store.ListDeliveries(c.Request.Context(), w.OrgID, w.ID, q.Cursor, q.Filter)
	if err != nil {
		Internal(c, err)
		return
	}
	CursorRows(c, rows, next, newDeliveryView, nil)
}

// getDelivery answers one delivery with every attempt.
func (s *Server) getDelivery(c *gin.Context) {
	w, ok := s.loadWebhook(c)
	if !ok {
		return
	}
	d, err := s.Store.GetDelivery(c.Request.Context(), w.OrgID, w.ID, c.Param("deliveryId"))
	if !Loaded(c, err) {
		return
	}
	as, err := s.Store.DeliveryAttempts(c.Request.Context(), w.OrgID, d.ID)
	if err != nil {
		Internal(c, err)
		return
	}
	OK(c, deliveryDetailView{deliveryView: newDeliveryView(d), Attempts: Views(as, newAttemptView)})
}
