package fraud

import (
	"errors"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	engine "github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/store"
)

// evaluate serves the fast-path evaluators: parse, find the published (and shadow) version,
// decide in one database transaction, answer. persist false is /api/lookup (nothing kept).
func (h *Handler) evaluate(kind engine.Kind, persist bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		raw, ok := api.RawBody(c)
		if !ok {
			return
		}
		req, err := engine.ParseEvaluate(raw, kind, h.Now())
		if !validation(c, err) {
			return
		}
		ctx, orgID := c.Request.Context(), api.PrincipalOf(c).OrgID
		subject := string(engine.KindTransaction)
		if req.Event.Kind == engine.KindEvent {
			subject = req.Event.Type
		}
		live, shadow, err := h.versionsFor(ctx, orgID, subject)
		if err != nil {
			api.Internal(c, err)
			return
		}
		in := store.FraudEvaluation{OrgID: orgID, Request: req, Live: live, Shadow: shadow, Persist: persist, Budget: h.ruleBudget()}
		if persist {
			in.Audit = api.AuditInTransaction(c) // committed with the decision
		}
		decided, err := h.Store.Fraud.Evaluate(ctx, in)
		if errors.Is(err, store.ErrUnknownDeviceSession) {
			api.ValidationFailed(c, api.FieldErrors{"deviceSessionId": {"unknown device session"}})
			return
		}
		if err != nil {
			api.Internal(c, err)
			return
		}
		view := newDecisionView(&decided.Decision, decided.Evaluation, decided.Features)
		view.TimingsMs = map[string]float64{"total": float64(time.Since(start).Microseconds()) / 1000}
		if persist {
			h.announce(decided.Announced)
		}
		if !persist {
			view.ID = ""
		}
		api.OK(c, view)
	}
}

// announce makes the first attempts of an event off the request path; the event was written
// with what it announces (store.PublishEventIn), so nothing is lost if this fails: the
// stranded-delivery sweep sends it.
func (h *Handler) announce(p *store.Published) {
	switch {
	case !store.AnyDeliveries(p):
	case h.hooks == nil:
		h.Logger.Warn("fraud event stored, its first attempts left to the worker's sweep", "event", p.Event.Name, "error", h.hooksErr)
	default:
		h.hooks.DeliverDetached(p)
	}
}

// validation answers 400 with the parser's field errors and reports whether err was nil.
func validation(c *gin.Context, err error) bool {
	if err == nil {
		return true
	}
	var ve *engine.ValidationError
	if errors.As(err, &ve) {
		api.ValidationFailed(c, api.FieldErrors(ve.Fields))
		return false
	}
	api.Internal(c, err)
	return false
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// deviceSession registers a device session and answers the device's history.
func (h *Handler) deviceSession(c *gin.Context) {
	raw, ok := api.RawBody(c)
	if !ok {
		return
	}
	req, err := engine.ParseDeviceSession(raw)
	if !validation(c, err) {
		return
	}
	seen, err := h.Store.Fraud.CreateDeviceSession(c.Request.Context(), api.PrincipalOf(c).OrgID, req)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.Created(c, deviceSessionView{
		ID: seen.Session.ID, DeviceID: seen.Session.DeviceID, CustomerID: nullable(seen.Session.CustomerID), IP: nullable(seen.Session.IP),
		Country: nullable(seen.Session.Country), FirstSeenAt: api.Timestamp(seen.FirstSeen), LastSeenAt: api.Timestamp(seen.LastSeen),
		Velocity: seen.Velocity["device"], CreatedAt: api.Timestamp(seen.Session.CreatedAt),
	})
}

// deviceSessionView is a device session as the API shows it.
type deviceSessionView struct {
	ID          string             `json:"id"`
	DeviceID    string             `json:"deviceId"`
	CustomerID  any                `json:"customerId"`
	IP          any                `json:"ip"`
	Country     any                `json:"country"`
	FirstSeenAt string             `json:"firstSeenAt"`
	LastSeenAt  string             `json:"lastSeenAt"`
	Velocity    map[string]float64 `json:"velocity"`
	CreatedAt   string             `json:"createdAt"`
}

// ruleBudget is fraud.rule_budget (the engine's default without a configuration).
func (h *Handler) ruleBudget() time.Duration {
	if h.Config == nil {
		return 0
	}
	return h.Config.Fraud.RuleBudget
}
