// Package cases is the cases product's API: alerts, cases with their four-eyes closure, and
// SAR filings with their four-eyes submission (SPEC 3.4, 5.5, 7.3).
package cases

import (
	"log/slog"

	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/auth"
	domain "github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/store"
)

// Deps are what the cases API needs.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	// Temporal runs each case's workflow and the SAR submissions; nil answers 503 where needed.
	Temporal client.Client
	Logger   *slog.Logger
}

// Handler serves the cases product's endpoints.
type Handler struct {
	Deps
}

// New builds the cases API.
func New(d Deps) *Handler { return &Handler{Deps: d} }

// Routes are the cases product's rows of the route table.
func (h *Handler) Routes() []api.Route {
	rs := []api.Route{
		{Method: "GET", Path: "/api/alerts", Scope: "cases:view", Summary: "list alerts (screening hits, fraud decisions), newest first (cursor)", Handler: h.listAlerts},

		{Method: "POST", Path: "/api/cases", Scope: "cases:write", Body: api.BodyJSON, Idempotent: true, Summary: "open a case by hand, optionally with alerts", Handler: h.createCase},
		{Method: "GET", Path: "/api/cases", Scope: "cases:view", Summary: "list cases, newest first", Handler: h.listCases},
		{Method: "GET", Path: "/api/cases/:id", Scope: "cases:view", Summary: "get a case with its alerts, evidence and timeline", Handler: h.getCase},
		{Method: "PATCH", Path: "/api/cases/:id", Scope: "cases:write", Body: api.BodyJSON, Summary: "change a case's title, priority or due date, or link evidence", Handler: h.patchCase},
		{Method: "POST", Path: "/api/cases/:id/comments", Scope: "cases:write", Body: api.BodyJSON, Summary: "comment on a case", Handler: h.addComment},
		{Method: "POST", Path: "/api/cases/:id/assign", Scope: "cases:write", Body: api.BodyJSON, Summary: "assign a case (an open or escalated case moves to investigating)", Handler: h.act(domain.ActionAssign)},
		{Method: "POST", Path: "/api/cases/:id/escalate", Scope: "cases:write", Body: api.BodyJSON, Summary: "escalate a case", Handler: h.act(domain.ActionEscalate)},
		{Method: "POST", Path: "/api/cases/:id/propose-close", Scope: "cases:write", Body: api.BodyJSON, Summary: "propose closing a case with an outcome (key bound to a user)", Handler: h.act(domain.ActionProposeClose)},
		{Method: "POST", Path: "/api/cases/:id/approve-close", Scope: "cases:write", Body: api.BodyJSON, Summary: "approve a proposed closure (a second user, reviewer or admin)", Handler: h.act(domain.ActionApproveClose)},
		{Method: "POST", Path: "/api/cases/:id/reject-close", Scope: "cases:write", Body: api.BodyJSON, Summary: "reject a proposed closure: back to investigating (a second user)", Handler: h.act(domain.ActionRejectClose)},
		{Method: "POST", Path: "/api/cases/:id/reopen", Scope: "cases:write", Body: api.BodyJSON, Summary: "reopen a closed case", Handler: h.act(domain.ActionReopen)},

		{Method: "POST", Path: "/api/sar-filings", Scope: "sar-filings:write", Body: api.BodyJSON, Idempotent: true, Summary: "draft a SAR filing from a case (key bound to a user)", Handler: h.createSAR},
		{Method: "GET", Path: "/api/sar-filings", Scope: "sar-filings:view", Summary: "list SAR filings, newest first", Handler: h.listSARs},
		{Method: "GET", Path: "/api/sar-filings/:id", Scope: "sar-filings:view", Summary: "get a SAR filing", Handler: h.getSAR},
		{Method: "PATCH", Path: "/api/sar-filings/:id", Scope: "sar-filings:write", Body: api.BodyJSON, Summary: "change a draft SAR filing", Handler: h.patchSAR},
		{Method: "POST", Path: "/api/sar-filings/:id/submit", Scope: "sar-filings:write", Body: api.BodyJSON, Summary: "submit a SAR filing to the regulator (a second user, not the drafter)", Handler: h.submitSAR},
	}
	return api.ForProduct(auth.ProductCases, rs)
}
