package fraud

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"go.temporal.io/api/serviceerror"

	"github.com/svcplatform/svc/api"
	engine "github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	fraudwf "github.com/svcplatform/svc/workflows/fraud"
)

// createBacktestRequest is the body of POST /api/rulesets/:id/backtests.
type createBacktestRequest struct {
	Version int    `json:"version"`
	From    string `json:"from"`
	To      string `json:"to"`
}

// backtestView is a backtest as the API shows it.
type backtestView struct {
	ID          string                 `json:"id"`
	RuleSetID   string                 `json:"ruleSetId"`
	Version     int                    `json:"version"`
	From        string                 `json:"from"`
	To          string                 `json:"to"`
	Status      string                 `json:"status"`
	Progress    map[string]int64       `json:"progress"`
	Report      *engine.BacktestReport `json:"report"`
	Error       any                    `json:"error"`
	CreatedAt   string                 `json:"createdAt"`
	CompletedAt any                    `json:"completedAt"`
}

func newBacktestView(b *store.FraudBacktest) backtestView {
	v := backtestView{ID: b.ID, RuleSetID: b.RuleSetID, Version: b.Version, From: api.Timestamp(b.From), To: api.Timestamp(b.To),
		Status: b.Status, Progress: map[string]int64{"done": b.Done, "total": b.Total}, Error: nullable(b.Error), CreatedAt: api.Timestamp(b.CreatedAt)}
	if b.Report != "" {
		r := engine.NewBacktestReport()
		if json.Unmarshal([]byte(b.Report), &r) == nil {
			v.Report = &r
		}
	}
	if b.CompletedAt != nil {
		v.CompletedAt = api.Timestamp(*b.CompletedAt)
	}
	return v
}

// createBacktest starts a FraudBacktest workflow replaying a version over the stored
// decisions of a date range, and answers 202 with the backtest to poll.
func (h *Handler) createBacktest(c *gin.Context) {
	var req createBacktestRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	from, errFrom := time.Parse(time.RFC3339Nano, req.From)
	to, errTo := time.Parse(time.RFC3339Nano, req.To)
	if errFrom != nil {
		fe.Add("from", "must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z")
	}
	if errTo != nil {
		fe.Add("to", "must be an RFC 3339 timestamp such as 2026-01-31T23:59:59Z")
	}
	if errFrom == nil && errTo == nil && to.Before(from) {
		fe.Add("to", "must not be before from")
	}
	if req.Version < 1 {
		fe.Add("version", "must be a version number of the rule set")
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	p := api.PrincipalOf(c)
	ctx := c.Request.Context()
	rs, err := h.Store.Fraud.GetRuleSet(ctx, p.OrgID, api.PathID(c))
	if !api.Loaded(c, err) || !api.TemporalAvailable(c, h.Temporal) {
		return
	}
	if _, err := h.Store.Fraud.GetRuleSetVersion(ctx, p.OrgID, rs.ID, req.Version); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			api.ValidationFailed(c, api.FieldErrors{"version": {"the rule set has no such version"}})
			return
		}
		api.Internal(c, err)
		return
	}
	now := h.Now().UTC()
	bt := &store.FraudBacktest{ID: ids.NewAt(ids.Backtest, now), OrgID: p.OrgID, RuleSetID: rs.ID, Version: req.Version,
		From: from.UTC(), To: to.UTC(), Status: store.BacktestRunning, CreatedBy: p.UserID, CreatedAt: now}
	if err := h.Store.Fraud.CreateBacktest(ctx, bt, rs.AppliesTo); err != nil {
		api.Internal(c, err)
		return
	}
	tctx, cancel := api.TemporalContext(c)
	defer cancel()
	if _, err := h.Temporal.ExecuteWorkflow(tctx, fraudwf.BacktestStartOptions(bt.ID, p.OrgID), fraudwf.BacktestName,
		fraudwf.BacktestInput{BacktestID: bt.ID, OrgID: p.OrgID, RuleSetID: rs.ID, Version: bt.Version}); err != nil {
		api.Logger(c).Error("start backtest", "backtestId", bt.ID, "error", err)
		_ = h.Store.Fraud.SaveBacktest(ctx, p.OrgID, bt.ID, store.BacktestFailed, 0, "", "could not be scheduled: the workflow service is unavailable")
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	api.Accepted(c, newBacktestView(bt))
}

func (h *Handler) getBacktest(c *gin.Context) {
	bt, err := h.Store.Fraud.GetBacktest(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if api.Loaded(c, err) {
		api.OK(c, newBacktestView(bt))
	}
}

// cancelBacktest asks the running backtest's workflow to stop; it records itself cancelled.
func (h *Handler) cancelBacktest(c *gin.Context) {
	ctx := c.Request.Context()
	bt, err := h.Store.Fraud.GetBacktest(ctx, api.PrincipalOf(c).OrgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return
	}
	if bt.Status != store.BacktestRunning {
		api.StateConflict(c, bt.Status, store.BacktestCancelled)
		return
	}
	if !api.TemporalAvailable(c, h.Temporal) {
		return
	}
	tctx, cancel := api.TemporalContext(c)
	defer cancel()
	err = h.Temporal.CancelWorkflow(tctx, bt.ID, "")
	var nf *serviceerror.NotFound
	if err != nil && !errors.As(err, &nf) {
		api.Internal(c, err)
		return
	}
	api.Accepted(c, newBacktestView(bt))
}
