package fraud

import (
	"encoding/json"
	"errors"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	engine "github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/internal/statemachine"
	"github.com/svcplatform/svc/store"
)

// decisionView is a decision as the API shows it.
type decisionView struct {
	ID           string               `json:"id,omitempty"`
	Outcome      engine.Outcome       `json:"outcome"`
	Score        int                  `json:"score"`
	MatchedRules []engine.MatchedRule `json:"matchedRules"`
	ReasonCodes  []string             `json:"reasonCodes"`
	RuleErrors   []engine.RuleError   `json:"ruleErrors"`
	Features     engine.Features      `json:"features"`
	RuleSet      *ruleSetRef          `json:"ruleset"`
	Shadow       *shadowView          `json:"shadow"`
	ReviewStatus string               `json:"reviewStatus"`
	Subject      map[string]any       `json:"transaction"`
	TimingsMs    map[string]float64   `json:"timingsMs,omitempty"`
	CreatedAt    string               `json:"createdAt"`
}

type ruleSetRef struct {
	ID      string `json:"id"`
	Version int    `json:"version"`
}

type shadowView struct {
	Version int `json:"version"`
	engine.Result
}

func newDecisionView(d *store.FraudDecision, ev engine.Evaluation, features engine.Features) decisionView {
	v := decisionView{
		ID: d.ID, Outcome: ev.Live.Outcome, Score: ev.Live.Score, MatchedRules: ev.Live.Matched, ReasonCodes: ev.Live.ReasonCodes,
		RuleErrors: ev.Live.Errors, Features: features, ReviewStatus: d.ReviewStatus, CreatedAt: api.Timestamp(d.CreatedAt),
		Subject: map[string]any{"kind": d.Kind, "id": nullable(d.TransactionID), "type": d.EventType, "customerId": d.CustomerID,
			"occurredAt": api.Timestamp(d.OccurredAt)},
	}
	if v.RuleErrors == nil {
		v.RuleErrors = []engine.RuleError{}
	}
	if v.Features == nil {
		v.Features = engine.Features{}
	}
	if d.Currency != "" {
		amount := engine.Amount{Minor: d.AmountMinor, Currency: d.Currency}
		v.Subject["amount"], v.Subject["currency"] = amount.Major(), d.Currency
	}
	if d.RuleSetID != "" {
		v.RuleSet = &ruleSetRef{ID: d.RuleSetID, Version: d.RuleSetVersion}
	}
	if ev.Shadow != nil {
		v.Shadow = &shadowView{Version: d.ShadowVersion, Result: *ev.Shadow}
	}
	return v
}

// storedView decodes a stored decision's results.
func storedView(d *store.FraudDecision) (decisionView, error) {
	var ev engine.Evaluation
	if err := json.Unmarshal([]byte(d.Result), &ev.Live); err != nil {
		return decisionView{}, err
	}
	if d.Shadow != "" {
		ev.Shadow = &engine.Result{}
		if err := json.Unmarshal([]byte(d.Shadow), ev.Shadow); err != nil {
			return decisionView{}, err
		}
	}
	var snap engine.Snapshot
	if err := json.Unmarshal([]byte(d.Snapshot), &snap); err != nil {
		return decisionView{}, err
	}
	return newDecisionView(d, ev, snap.Velocity), nil
}

func (h *Handler) listDecisions(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Cursor: true,
		Filters:  []string{api.FilterQ, api.FilterStatus, api.FilterFrom, api.FilterTo, api.FilterCustomerID, api.FilterExternalID},
		Statuses: outcomes()})
	if !ok {
		return
	}
	rows, next, err := h.Store.Fraud.ListDecisions(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Cursor, q.Filter)
	if err != nil {
		api.Internal(c, err)
		return
	}
	views := make([]decisionView, 0, len(rows))
	for i := range rows {
		v, err := storedView(&rows[i])
		if err != nil {
			api.Internal(c, err)
			return
		}
		views = append(views, v)
	}
	api.CursorList(c, views, api.NextCursor(next), nil)
}

func outcomes() []string {
	out := make([]string, len(engine.Outcomes))
	for i, o := range engine.Outcomes {
		out[i] = string(o)
	}
	return out
}

func (h *Handler) getDecision(c *gin.Context) {
	d, err := h.Store.Fraud.GetDecision(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return
	}
	v, err := storedView(d)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.OK(c, v)
}

// reviewDecision approves or declines a decision waiting for review, by a key bound to a user.
func (h *Handler) reviewDecision(c *gin.Context) {
	// Another organisation's id is 404 before anything else is said about the caller.
	_, err := h.Store.Fraud.GetDecision(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return
	}
	p, ok := api.RequireUser(c)
	if !ok {
		return
	}
	raw, ok := api.RawBody(c)
	if !ok {
		return
	}
	req, err := engine.ParseReview(raw)
	if !validation(c, err) {
		return
	}
	d, announced, err := h.Store.Fraud.ReviewDecision(c.Request.Context(), p.OrgID, api.PathID(c), req.To, p.UserID, req.Note)
	if conflict(c, err) || !api.Loaded(c, err) {
		return
	}
	v, err := storedView(d)
	if err != nil {
		api.Internal(c, err)
		return
	}
	// A person declining a decision held for review is a decline too: subscribers hear it as
	// fraud.decision.declined (written with the review), as they hear the rules' own declines.
	h.announce(announced)
	api.OK(c, v)
}

// conflict answers 409 for a state machine's refusal and reports whether it did.
func conflict(c *gin.Context, err error) bool {
	var sc *statemachine.ConflictError
	if errors.As(err, &sc) {
		api.StateConflict(c, sc.From, sc.To)
		return true
	}
	return false
}
