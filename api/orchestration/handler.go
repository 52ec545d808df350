// Package orchestration is the orchestration product's API: workflow definitions, executions,
// human approvals and pings (SPEC 3).
package orchestration

import (
	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/auth"
	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/store"
)

// Deps are what the orchestration API needs.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	// Temporal starts, updates and cancels executions; nil answers 503 where it is needed.
	Temporal client.Client
}

// Handler serves the orchestration product's endpoints.
type Handler struct {
	Deps
}

// New builds the orchestration API.
func New(d Deps) *Handler { return &Handler{Deps: d} }

// Routes are the orchestration product's rows of the route table.
func (h *Handler) Routes() []api.Route {
	rs := []api.Route{
		{Method: "POST", Path: "/api/pings", Scope: "pings:write", Body: api.BodyJSON, Idempotent: true, Summary: "start the trivial ping workflow", Handler: h.createPing},
		{Method: "GET", Path: "/api/pings/:id", Scope: "pings:view", Summary: "get a ping", Handler: h.getPing},

		{Method: "POST", Path: "/api/workflows", Scope: "workflows:write", Body: api.BodyJSON, Idempotent: true, Summary: "create a workflow with its first definition version", Handler: h.createWorkflow},
		{Method: "GET", Path: "/api/workflows", Scope: "workflows:view", Summary: "list workflows", Handler: h.listWorkflows},
		{Method: "GET", Path: "/api/workflows/:id", Scope: "workflows:view", Summary: "get a workflow (by id or slug) with its latest definition", Handler: h.getWorkflow},
		{Method: "POST", Path: "/api/workflows/:id/versions", Scope: "workflows:write", Body: api.BodyJSON, Idempotent: true, Summary: "add an immutable definition version", Handler: h.addWorkflowVersion},
		{Method: "GET", Path: "/api/workflows/:id/versions/:version", Scope: "workflows:view", Summary: "get one definition version", Handler: h.getWorkflowVersion},
		{Method: "POST", Path: "/api/workflows/:id/executions", Scope: "executions:write", Body: api.BodyJSON, MaxBody: MaxInputsBytes + 4<<10, Idempotent: true, Summary: "start an execution of a workflow version", Handler: h.startExecution},
		{Method: "GET", Path: "/api/executions", Scope: "executions:view", Summary: "list executions, newest first", Handler: h.listExecutions},
		{Method: "GET", Path: "/api/executions/:id", Scope: "executions:view", Summary: "get an execution with its steps, approvals and Temporal UI link", Handler: h.getExecution},
		{Method: "POST", Path: "/api/executions/:id/cancel", Scope: "executions:write", Body: api.BodyJSON, Summary: "cancel a pending or running execution", Handler: h.cancelExecution},
		{Method: "GET", Path: "/api/approvals", Scope: "approvals:view", Summary: "list human approvals", Handler: h.listApprovals},
		{Method: "GET", Path: "/api/approvals/:id", Scope: "approvals:view", Summary: "get a human approval (by apr_ or stp_ id)", Handler: h.getApproval},
		{Method: "POST", Path: "/api/approvals/:id/approve", Scope: "approvals:write", Body: api.BodyJSON, Summary: "approve a pending approval (key bound to a user)", Handler: h.resolveApproval(orch.DecisionApprove)},
		{Method: "POST", Path: "/api/approvals/:id/reject", Scope: "approvals:write", Body: api.BodyJSON, Summary: "reject a pending approval (key bound to a user)", Handler: h.resolveApproval(orch.DecisionReject)},
	}
	return api.ForProduct(auth.ProductOrchestration, rs)
}
