// Package webhooks holds the webhooks product's activities: publishing events and delivery
// attempts. Activities are idempotent, because Temporal may run one twice.
package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/buildinfo"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/netguard"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/webhook"
	"github.com/svcplatform/svc/workflows"
	hookwf "github.com/svcplatform/svc/workflows/webhooks"
)

// WorkflowStarter starts workflows; client.Client is one.
type WorkflowStarter interface {
	ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error)
}

// Activities implements the webhook activities: publishing an event and one delivery attempt.
type Activities struct {
	// Store holds subscriptions, events, deliveries and attempts.
	Store *store.Store
	// Box opens the subscriptions' sealed secrets.
	Box *secrets.Box
	// HTTP sends the attempts; build it with netguard (SSRF guard, no redirects).
	HTTP *http.Client
	// Guard is the SSRF guard HTTP enforces; the API checks target URLs with it when they are saved.
	Guard *netguard.Guard
	// Temporal starts the WebhookDelivery workflow of a delivery whose first attempt failed.
	Temporal WorkflowStarter
	// Schedule and ReceiverTimeout go into the workflows PublishEvent starts (config webhooks.*).
	Schedule        []time.Duration
	ReceiverTimeout time.Duration
	// InlineWait is how long PublishEvent waits for the first attempts it makes inline
	// (zero: DefaultInlineWait).
	InlineWait time.Duration
	// Logger is for the operator; it never receives a secret or a body.
	Logger *slog.Logger

	slotsOnce sync.Once
	slots     chan struct{} // the process's bound on concurrent first attempts (InlineConcurrency)
}

// ErrNoSecretsKey is returned by NewWebhooks when config secrets.key is not set.
var ErrNoSecretsKey = errors.New("config: secrets.key (SVC_SECRETS_KEY) is required for webhooks: 32 random bytes, base64")

// New builds the webhook activities from config: the secrets box
// (secrets.key), the SSRF guard and its client (webhooks.allow_cidrs; https
// only in the live environment), the ladder (webhooks.schedule) and the
// receiver timeout. It is the one place that turns config into these, for the
// worker and the API alike. temporal starts delivery workflows; it may be nil
// for a caller that never starts one.
func New(cfg *config.Config, st *store.Store, temporal WorkflowStarter, logger *slog.Logger) (*Activities, error) {
	box, err := secrets.FromConfig(cfg.Secrets.Key)
	if errors.Is(err, secrets.ErrNoKey) {
		return nil, ErrNoSecretsKey
	} else if err != nil {
		return nil, err
	}
	g, err := netguard.New(netguard.Config{AllowCIDRs: cfg.Webhooks.AllowCIDRs, RequireHTTPS: cfg.Environment == "live"})
	if err != nil {
		return nil, fmt.Errorf("config: webhooks.allow_cidrs: %w", err)
	}
	return &Activities{Store: st, Box: box, HTTP: g.Client(), Guard: g, Temporal: temporal,
		Schedule: cfg.Webhooks.Schedule, ReceiverTimeout: cfg.Webhooks.ReceiverTimeout, Logger: logger}, nil
}

// PublishEvent validates the event against the catalog, writes it once with one
// delivery per subscription that wants it, and makes each delivery's first attempt inline
// (deliverFirst); only a delivery whose first attempt failed, or did not end in time,
// starts a WebhookDelivery workflow for the rest of its ladder. Running it twice writes
// nothing twice and sends no delivery again whose answer was recorded.
func (w *Activities) PublishEvent(ctx context.Context, in workflows.PublishEventInput) (workflows.PublishEventResult, error) {
	env, err := events.NewEnvelope(in.EventID, in.Event, in.OrgID, in.OccurredAt, in.Data)
	if err != nil {
		return workflows.PublishEventResult{}, temporal.NewNonRetryableApplicationError(err.Error(), workflows.ErrTypeInvalidEvent, err)
	}
	evt, ds, err := w.Store.Webhooks.PublishEvent(ctx, env)
	if err != nil {
		return workflows.PublishEventResult{}, err
	}
	if err := w.deliverFirst(ctx, evt, ds); err != nil {
		return workflows.PublishEventResult{}, err
	}
	out := workflows.PublishEventResult{EventID: env.ID, DeliveryIDs: make([]string, 0, len(ds))}
	for _, d := range ds {
		out.DeliveryIDs = append(out.DeliveryIDs, d.ID)
	}
	return out, nil
}

// PublishStartConcurrency bounds the delivery workflows PublishEvent starts at once.
const PublishStartConcurrency = 16

// StartDelivery starts the WebhookDelivery workflow of a stored delivery. It is
// idempotent: a delivery whose workflow runs or ran already is not started again.
// The API uses it too (test sends, redeliveries).
func (w *Activities) StartDelivery(ctx context.Context, orgID, deliveryID string) error {
	return w.startLadder(ctx, orgID, deliveryID, 1, 0)
}

// startLadder starts the WebhookDelivery workflow of a delivery at rung from (1: the whole
// ladder), waiting wait before it when from > 1. Like StartDelivery it starts a delivery's
// workflow at most once.
func (w *Activities) startLadder(ctx context.Context, orgID, deliveryID string, from int, wait time.Duration) error {
	if w.Temporal == nil {
		return fmt.Errorf("start webhook delivery %s: no Temporal client", deliveryID)
	}
	in := hookwf.WebhookDeliveryInput{DeliveryID: deliveryID, OrgID: orgID, Schedule: w.Schedule, ReceiverTimeout: w.ReceiverTimeout}
	if from > 1 {
		in.FromAttempt, in.FirstWait = from, wait
	}
	_, err := w.Temporal.ExecuteWorkflow(ctx, hookwf.WebhookDeliveryStartOptions(deliveryID), hookwf.WebhookDeliveryName, in)
	if err != nil && !workflows.AlreadyStarted(err) {
		return fmt.Errorf("start webhook delivery %s: %w", deliveryID, err)
	}
	return nil
}

// AttemptWebhookDelivery makes one attempt of a delivery: it POSTs the event's
// stored body, signed with the subscription's secret, within the receiver
// timeout, and records the attempt and the delivery's new status
// (hookwf.DecideWebhookAttempt). An attempt already recorded is not sent
// again: its recorded outcome is returned, so an activity that runs twice
// posts once. Only store failures are returned as errors.
func (w *Activities) AttemptWebhookDelivery(ctx context.Context, in hookwf.WebhookAttemptInput) (hookwf.WebhookAttemptResult, error) {
	if rec, err := w.Store.Webhooks.RecordedAttempt(ctx, in.OrgID, in.DeliveryID, in.Attempt); err == nil {
		return w.outcome(in, rec.StatusCode, rec.Error, rec.RetryAfterSeconds, false), nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return hookwf.WebhookAttemptResult{}, err
	}
	target, err := w.Store.Webhooks.LoadDeliveryTarget(ctx, in.OrgID, in.DeliveryID)
	if errors.Is(err, store.ErrNotFound) {
		reason := "delivery or its subscription no longer exists"
		if derr := w.Store.Webhooks.DropDelivery(ctx, in.OrgID, in.DeliveryID, reason); derr != nil {
			return hookwf.WebhookAttemptResult{}, derr
		}
		return hookwf.WebhookAttemptResult{Gone: true, Error: reason, Status: webhook.StatusDropped}, nil
	}
	if err != nil {
		return hookwf.WebhookAttemptResult{}, err
	}
	if target.Delivery.Status.Final() {
		// Decided by an earlier run whose result the workflow did not get.
		res := hookwf.WebhookAttemptResult{StatusCode: target.Delivery.LastStatusCode, Error: target.Delivery.LastError, Status: target.Delivery.Status}
		res.Gone = target.Delivery.Status == webhook.StatusDropped
		return res, nil
	}
	return w.attemptTarget(ctx, target, in)
}

// attemptTarget sends attempt in.Attempt of a loaded delivery (unless its subscription is
// inactive) and records it with the delivery's new status (hookwf.DecideWebhookAttempt).
// Only store failures are returned as errors.
func (w *Activities) attemptTarget(ctx context.Context, target *store.DeliveryTarget, in hookwf.WebhookAttemptInput) (hookwf.WebhookAttemptResult, error) {
	a, res := w.sendAttempt(ctx, target, in)
	return res, w.recordAttempt(ctx, in, a, res)
}

// sendAttempt sends attempt in.Attempt of a loaded delivery, unless its subscription is
// inactive, and returns the attempt to record and its outcome.
func (w *Activities) sendAttempt(ctx context.Context, target *store.DeliveryTarget, in hookwf.WebhookAttemptInput) (store.DeliveryAttempt, hookwf.WebhookAttemptResult) {
	started := time.Now()
	a := store.DeliveryAttempt{DeliveryID: in.DeliveryID, Attempt: in.Attempt, OrgID: in.OrgID, AttemptedAt: started}
	gone := !target.Subscription.Active
	if gone {
		a.Error = "subscription is inactive"
	} else {
		a.StatusCode, a.RetryAfterSeconds, a.ResponseBody, a.Error = w.send(ctx, target, in, started)
		a.LatencyMs = time.Since(started).Milliseconds()
	}
	return a, w.outcome(in, a.StatusCode, a.Error, a.RetryAfterSeconds, gone)
}

// recordAttempt records a sent attempt and the delivery's new status.
func (w *Activities) recordAttempt(ctx context.Context, in hookwf.WebhookAttemptInput, a store.DeliveryAttempt, res hookwf.WebhookAttemptResult) error {
	var next *time.Time
	if d := hookwf.DecideWebhookAttempt(in.Schedule, in.Attempt, res); d.Status == webhook.StatusFailed {
		t := time.Now().Add(d.NextDelay).UTC()
		next = &t
	}
	if err := w.Store.Webhooks.RecordAttempt(ctx, a, res.Status, next); err != nil {
		return err
	}
	w.logger().Info("webhook attempt", "delivery_id", in.DeliveryID, "org_id", in.OrgID, "attempt", in.Attempt,
		"status_code", a.StatusCode, "latency_ms", a.LatencyMs, "status", res.Status, "error", a.Error)
	return nil
}

// outcome builds the attempt result and the status it leads to.
func (w *Activities) outcome(in hookwf.WebhookAttemptInput, code int, errMsg string, retryAfter int, gone bool) hookwf.WebhookAttemptResult {
	res := hookwf.WebhookAttemptResult{StatusCode: code, Error: errMsg, RetryAfterSeconds: retryAfter, Gone: gone}
	res.Status = hookwf.DecideWebhookAttempt(in.Schedule, in.Attempt, res).Status
	return res
}

// send POSTs the delivery and returns what the receiver answered, or why it did not.
func (w *Activities) send(ctx context.Context, t *store.DeliveryTarget, in hookwf.WebhookAttemptInput, now time.Time) (code, retryAfter int, body, errMsg string) {
	secret, err := store.WebhookSecret(w.Box, &t.Subscription)
	if err != nil {
		return 0, 0, "", "cannot open the subscription secret (was secrets.key changed?)"
	}
	def, _ := events.Lookup(t.Event.Name)
	headers := webhook.Headers(secret, webhook.Message{
		EventID: t.Event.ID, Event: t.Event.Name, DeliveryID: t.Delivery.ID, Attempt: in.Attempt,
		Timestamp: now, Prefixes: def.Product.HeaderPrefixes(), UserAgent: buildinfo.UserAgent(string(def.Product)),
	}, t.Event.Body)
	timeout := in.ReceiverTimeout
	if timeout <= 0 {
		timeout = hookwf.DefaultReceiverTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.Subscription.URL, bytes.NewReader(t.Event.Body))
	if err != nil {
		return 0, 0, "", "invalid target URL: " + err.Error()
	}
	req.Header = headers
	resp, err := w.HTTP.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return 0, 0, "", fmt.Sprintf("no answer within %s", timeout)
		}
		return 0, 0, "", err.Error()
	}
	defer resp.Body.Close()
	// The status line is the answer; the start of the body is kept for the delivery log.
	head, _ := io.ReadAll(io.LimitReader(resp.Body, store.MaxResponseBody))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return resp.StatusCode, retryAfter, string(head), ""
}

// maxRetryAfter bounds a receiver's Retry-After; the ladder caps it further.
const maxRetryAfter = 24 * 60 * 60

// parseRetryAfter reads a Retry-After header (seconds or an HTTP date) as whole
// seconds from now, at most maxRetryAfter; 0 if absent or invalid.
func parseRetryAfter(v string, now time.Time) int {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return int(min(max(n, 0), maxRetryAfter))
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d <= 0 {
			return 0
		}
		return int(min((d+time.Second-1)/time.Second, maxRetryAfter))
	}
	return 0
}

// DropWebhookDelivery marks a delivery dropped when its last attempt could not record itself.
func (w *Activities) DropWebhookDelivery(ctx context.Context, in hookwf.WebhookDropInput) error {
	reason := fmt.Sprintf("attempt %d could not complete: %s", in.Attempt, in.Error)
	return w.Store.Webhooks.DropDelivery(ctx, in.OrgID, in.DeliveryID, reason)
}

func (w *Activities) logger() *slog.Logger {
	if w.Logger != nil {
		return w.Logger
	}
	return slog.Default()
}
