// Package automation is the AI automation product's API: runs of the built-in automations
// (case summary, SAR draft, document fields), each a workflow whose result arrives by event
// (automation.completed, automation.failed), and the audit records of model steps.
package automation

import (
	"time"

	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/store"
)

// Deps are what the automation API needs.
type Deps struct {
	Store *store.Store
	// Temporal starts the runs' workflows; nil answers 503 where it is needed.
	Temporal client.Client
	// Cases finds the case of a case summary or SAR draft; nil until the cases product
	// provides it, and then those automations answer 503.
	Cases automation.CaseReader
	// Now is the clock.
	Now func() time.Time
}

// Handler serves the automation product's endpoints.
type Handler struct {
	Deps
}

// New builds the automation API.
func New(d Deps) *Handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Handler{Deps: d}
}

// Routes are the automation product's rows of the route table.
func (h *Handler) Routes() []api.Route {
	runs := api.ForProduct(auth.ProductAutomation, []api.Route{
		{Method: "POST", Path: "/api/automations", Scope: "automations:write", Body: api.BodyJSON, Idempotent: true, Summary: "start a built-in automation (case_summary, sar_draft, document_fields)", Handler: h.createRun},
		{Method: "GET", Path: "/api/automations", Scope: "automations:view", Summary: "list automation runs, newest first", Handler: h.listRuns},
		{Method: "GET", Path: "/api/automations/:id", Scope: "automations:view", Summary: "get an automation run with its machine-written result and model exchanges", Handler: h.getRun},
	})
	// An ai node is a node of orchestration's definitions: its audit record is read with the
	// execution, by whoever may read executions.
	steps := api.ForProduct(auth.ProductOrchestration, []api.Route{
		{Method: "GET", Path: "/api/executions/:id/steps/:stepId/exchanges", Scope: "executions:view", Summary: "the audit record of an ai step: prompts and answers (or their sizes), model, tokens, latency", Handler: h.stepExchanges},
	})
	return append(runs, steps...)
}
