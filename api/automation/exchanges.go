package automation

import (
	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/store"
)

// exchangeView is the audit record of one model step attempt: the conversation after
// redaction of secrets (or only its sizes under ai.audit=redact), model, tokens and latency.
type exchangeView struct {
	ID           string               `json:"id"`
	Model        *string              `json:"model"`
	Usage        automation.Usage     `json:"usage"`
	LatencyMs    int64                `json:"latencyMs"`
	Attempts     int                  `json:"attempts"`
	Policy       string               `json:"policy"`
	Conversation []automation.Message `json:"conversation"`
	ErrorMessage *string              `json:"errorMessage"`
	CreatedAt    string               `json:"createdAt"`
}

func exchangeViews(xs []store.AIExchange) []exchangeView {
	out := make([]exchangeView, 0, len(xs))
	for _, x := range xs {
		conv := x.Conversation
		if conv == nil {
			conv = []automation.Message{}
		}
		out = append(out, exchangeView{ID: x.ID, Model: api.Nullable(x.Model), Usage: x.Usage, LatencyMs: x.LatencyMs, Attempts: x.Attempts,
			Policy: x.Policy, Conversation: conv, ErrorMessage: api.Nullable(x.Error), CreatedAt: api.Timestamp(x.CreatedAt)})
	}
	return out
}

// stepExchanges answers GET /api/executions/:id/steps/:stepId/exchanges: the audit records
// of an ai step of an execution of the caller's organisation (404 for another's), oldest
// first; empty for a step that never reached the model.
func (h *Handler) stepExchanges(c *gin.Context) {
	orgID := api.PrincipalOf(c).OrgID
	ctx := c.Request.Context()
	e, err := h.Store.Orchestration.GetExecution(ctx, orgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return
	}
	xs, err := h.Store.Automation.Exchanges(ctx, orgID, c.Param("stepId"))
	if err != nil {
		api.Internal(c, err)
		return
	}
	mine := xs[:0]
	for _, x := range xs {
		if x.ExecutionID == e.ID {
			mine = append(mine, x)
		}
	}
	api.OK(c, exchangeViews(mine))
}
