package orchestration

import (
	"errors"
	"net/http"

	"github.com/svcplatform/svc/api"

	"github.com/gin-gonic/gin"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	orchwf "github.com/svcplatform/svc/workflows/orchestration"
)

type pingRequest struct {
	Message    string `json:"message"`
	ExternalID string `json:"externalId"`
}

type pingView struct {
	ID          string  `json:"id"`
	Message     string  `json:"message"`
	Status      string  `json:"status"`
	Echo        string  `json:"echo"`
	CreatedAt   string  `json:"createdAt"`
	CompletedAt *string `json:"completedAt"`
}

// createPing starts the trivial Ping workflow and answers 202 with its id.
func (h *Handler) createPing(c *gin.Context) {
	var req pingRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	if req.Message == "" {
		fe.Add("message", "is required")
	} else if len(req.Message) > 500 {
		fe.Add("message", "must be at most 500 characters")
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	p := api.PrincipalOf(c)
	ping := &store.Ping{ID: ids.New(ids.Execution), OrgID: p.OrgID, Message: req.Message}
	if err := h.Store.Orchestration.CreatePing(c.Request.Context(), ping); err != nil {
		api.Internal(c, err)
		return
	}
	attrs := []temporal.SearchAttributeUpdate{workflows.AttrOrgID.ValueSet(p.OrgID), workflows.AttrWorkflowSlug.ValueSet("ping")}
	if req.ExternalID != "" {
		attrs = append(attrs, workflows.AttrExternalID.ValueSet(req.ExternalID))
	}
	_, err := h.Temporal.ExecuteWorkflow(c.Request.Context(), client.StartWorkflowOptions{
		ID:                       ping.ID,
		TaskQueue:                workflows.QueueOrchestration,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes:    temporal.NewSearchAttributes(attrs...),
		StaticSummary:            "ping: " + truncate(req.Message, 60),
	}, orchwf.Ping, orchwf.PingInput{PingID: ping.ID, OrgID: p.OrgID, Message: req.Message})
	if err != nil {
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		api.Logger(c).Error("start ping workflow", "error", err, "pingId", ping.ID)
		return
	}
	api.Accepted(c, gin.H{"id": ping.ID})
}

// getPing answers a ping of the caller's organisation.
func (h *Handler) getPing(c *gin.Context) {
	ping, err := h.Store.Orchestration.GetPing(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if errors.Is(err, store.ErrNotFound) {
		api.NotFound(c)
		return
	}
	if err != nil {
		api.Internal(c, err)
		return
	}
	v := pingView{ID: ping.ID, Message: ping.Message, Status: ping.Status, Echo: ping.Echo, CreatedAt: api.Timestamp(ping.CreatedAt)}
	if ping.CompletedAt != nil {
		t := api.Timestamp(*ping.CompletedAt)
		v.CompletedAt = &t
	}
	api.OK(c, v)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
