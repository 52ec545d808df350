// Package fraud serves the anti-fraud product: the fast-path evaluators (no Temporal on the
// request path), device sessions, decisions and their reviews, rule sets with four-eyes versions,
// shadow runs and backtests.
package fraud

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	hookacts "github.com/svcplatform/svc/activities/webhooks"
	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/auth"
	engine "github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/store"
)

// Deps are what the fraud API needs.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	// Temporal runs backtests; nil answers 503 there. The evaluators never call it.
	Temporal client.Client
	Logger   *slog.Logger
	// Now is the clock.
	Now func() time.Time
}

// Handler serves the fraud product's endpoints.
type Handler struct {
	Deps
	// hooks publishes the product's events; nil (hooksErr says why) when config lacks
	// secrets.key, and then events are logged as not published.
	hooks    *hookacts.Activities
	hooksErr error
	// versions caches compiled rule set versions: a version never changes once saved.
	versions sync.Map
}

// New builds the fraud API.
func New(d Deps) *Handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	h := &Handler{Deps: d}
	h.hooks, h.hooksErr = hookacts.New(d.Config, d.Store, d.Temporal, d.Logger)
	return h
}

// Routes is the product's part of the route table.
func (h *Handler) Routes() []api.Route {
	return api.ForProduct(auth.ProductFraud, []api.Route{
		{Method: "POST", Path: "/api/transactions/evaluate", Scope: "fraud:write", Bucket: api.BucketEvaluate, Body: api.BodyJSON, Idempotent: true, Summary: "decide on a transaction (fast path)", Handler: h.evaluate(engine.KindTransaction, true)},
		{Method: "POST", Path: "/api/evaluate", Scope: "fraud:write", Bucket: api.BucketEvaluate, Body: api.BodyJSON, Idempotent: true, Summary: "decide on an event such as a login or a payout (fast path)", Handler: h.evaluate(engine.KindEvent, true)},
		{Method: "POST", Path: "/api/lookup", Scope: "fraud:view", Bucket: api.BucketScreening, Body: api.BodyJSON, Summary: "what a transaction or event would be decided, keeping nothing", Handler: h.evaluate("", false)},
		{Method: "POST", Path: "/api/device-session", Scope: "fraud:write", Bucket: api.BucketDeviceSession, Body: api.BodyJSON, Idempotent: true, Summary: "register a device session", Handler: h.deviceSession},
		{Method: "GET", Path: "/api/decisions", Scope: "fraud:view", Summary: "list decisions (cursor)", Handler: h.listDecisions},
		{Method: "GET", Path: "/api/decisions/:id", Scope: "fraud:view", Summary: "get a decision with its evidence", Handler: h.getDecision},
		{Method: "POST", Path: "/api/decisions/:id/review", Scope: "fraud:write", Body: api.BodyJSON, Summary: "approve or decline a decision waiting for review (key bound to a user)", Handler: h.reviewDecision},
		{Method: "POST", Path: "/api/rulesets", Scope: "fraud:write", Body: api.BodyJSON, Idempotent: true, Summary: "create a rule set", Handler: h.createRuleSet},
		{Method: "GET", Path: "/api/rulesets", Scope: "fraud:view", Summary: "list rule sets", Handler: h.listRuleSets},
		{Method: "GET", Path: "/api/rulesets/:id", Scope: "fraud:view", Summary: "get a rule set", Handler: h.getRuleSet},
		{Method: "POST", Path: "/api/rulesets/:id/versions", Scope: "fraud:write", Body: api.BodyJSON, Idempotent: true, Summary: "draft a rule set version (key bound to a user)", Handler: h.createVersion},
		{Method: "GET", Path: "/api/rulesets/:id/versions/:version", Scope: "fraud:view", Summary: "get a rule set version", Handler: h.getVersion},
		{Method: "POST", Path: "/api/rulesets/:id/versions/:version/submit", Scope: "fraud:write", Summary: "submit a draft for approval (four-eyes)", Handler: h.transition(engine.ActionSubmit)},
		{Method: "POST", Path: "/api/rulesets/:id/versions/:version/approve", Scope: "fraud:write", Summary: "approve a version (four-eyes: not its drafter)", Handler: h.transition(engine.ActionApprove)},
		{Method: "POST", Path: "/api/rulesets/:id/versions/:version/reject", Scope: "fraud:write", Summary: "reject a version (four-eyes: not its drafter)", Handler: h.transition(engine.ActionReject)},
		{Method: "POST", Path: "/api/rulesets/:id/versions/:version/publish", Scope: "fraud:write", Summary: "publish an approved version", Handler: h.transition(engine.ActionPublish)},
		{Method: "POST", Path: "/api/rulesets/:id/versions/:version/shadow", Scope: "fraud:write", Summary: "run a version in shadow beside the published one", Handler: h.shadow},
		{Method: "POST", Path: "/api/rulesets/:id/backtests", Scope: "fraud:write", Body: api.BodyJSON, Summary: "backtest a version over stored decisions (202)", Handler: h.createBacktest},
		{Method: "GET", Path: "/api/backtests/:id", Scope: "fraud:view", Summary: "get a backtest's progress and report", Handler: h.getBacktest},
		{Method: "PUT", Path: "/api/fraud-lists/:name", Scope: "fraud:write", Body: api.BodyJSON, Summary: "replace a value list that rules read as lists.<name>", Handler: h.putList},
		{Method: "GET", Path: "/api/fraud-lists/:name", Scope: "fraud:view", Summary: "get a value list", Handler: h.getList},
		{Method: "POST", Path: "/api/backtests/:id/cancel", Scope: "fraud:write", Summary: "cancel a running backtest", Handler: h.cancelBacktest},
	})
}

// compiled returns the compiled rule set version, compiling it on first use.
func (h *Handler) compiled(ctx context.Context, orgID, ruleSetID string, version int) (*store.FraudVersion, error) {
	key := fmt.Sprintf("%s@%d", ruleSetID, version)
	if v, ok := h.versions.Load(key); ok {
		return v.(*store.FraudVersion), nil
	}
	row, err := h.Store.Fraud.GetRuleSetVersion(ctx, orgID, ruleSetID, version)
	if err != nil {
		return nil, err
	}
	spec, err := decodeSpec(row.Spec)
	if err != nil {
		return nil, err
	}
	rs, err := engine.Compile(spec, nil)
	if err != nil {
		return nil, fmt.Errorf("stored version %s does not compile: %w", key, err)
	}
	v := &store.FraudVersion{RuleSetID: ruleSetID, Version: version, Rules: rs}
	h.versions.Store(key, v)
	return v, nil
}

// versionsFor returns the published and shadow versions deciding a subject (nil when none).
func (h *Handler) versionsFor(ctx context.Context, orgID, subject string) (live, shadow *store.FraudVersion, err error) {
	rs, err := h.Store.Fraud.RuleSetFor(ctx, orgID, subject)
	if err == store.ErrNotFound || (err == nil && rs.PublishedVersion == 0) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if live, err = h.compiled(ctx, orgID, rs.ID, rs.PublishedVersion); err != nil {
		return nil, nil, err
	}
	if rs.ShadowVersion != 0 {
		if shadow, err = h.compiled(ctx, orgID, rs.ID, rs.ShadowVersion); err != nil {
			return nil, nil, err
		}
	}
	return live, shadow, nil
}
