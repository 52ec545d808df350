// Package screening is the screening product's API: an organisation's sanctions lists and
// screenings of a name against them, each hit explained.
package screening

import (
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"

	scracts "github.com/svcplatform/svc/activities/screening"
	hookacts "github.com/svcplatform/svc/activities/webhooks"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/store"
)

// Deps are what the screening API needs.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	// Temporal starts the monitoring rescreens of changed organisation lists; nil leaves
	// them to the next change (logged).
	Temporal client.Client
	Logger   *slog.Logger
	// Now is the clock.
	Now func() time.Time
}

// Handler serves the screening product's endpoints.
type Handler struct {
	Deps
	// screener screens and records, with the product's events and alerts.
	screener *scracts.Screener
}

// New builds the screening API.
func New(d Deps) *Handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	hooks, err := hookacts.New(d.Config, d.Store, d.Temporal, d.Logger)
	if err != nil {
		d.Logger.Warn("screening events are stored, and sent by the worker's sweep only", "error", err)
		hooks = nil
	}
	sc := scracts.NewScreener(d.Store, hooks, d.Logger)
	sc.Detached = true
	if d.Config != nil {
		sc.Threshold = d.Config.Screening.Threshold
	}
	return &Handler{Deps: d, screener: sc}
}

// Routes are the screening product's rows of the route table.
func (h *Handler) Routes() []api.Route {
	return api.ForProduct(auth.ProductScreening, []api.Route{
		{Method: "POST", Path: "/api/screening-lists", Scope: "screening-lists:write", Body: api.BodyJSON, MaxBody: maxListBody, Idempotent: true, Summary: "create an organisation list with its entries", Handler: h.createList},
		{Method: "GET", Path: "/api/screening-lists", Scope: "screening-lists:view", Summary: "list the organisation's screening lists with their version and entity count", Handler: h.listLists},
		{Method: "PUT", Path: "/api/screening-lists/:id/entries/:entryId", Scope: "screening-lists:write", Body: api.BodyJSON, Summary: "add or change an entry of an organisation list (a new list version)", Handler: h.putEntry},
		{Method: "DELETE", Path: "/api/screening-lists/:id/entries/:entryId", Scope: "screening-lists:write", Summary: "remove an entry of an organisation list (a new list version)", Handler: h.deleteEntry},
		{Method: "POST", Path: "/api/screening-lists/:id/upload", Scope: "screening-lists:write", Body: api.BodyMultipart, MaxBody: maxListBody, Summary: "replace an organisation list's entries with a CSV file (a new list version when the content changed)", Handler: h.uploadList},
		{Method: "GET", Path: "/api/screening-settings", Scope: "screening-lists:view", Summary: "the organisation's screening defaults", Handler: h.getSettings},
		{Method: "PUT", Path: "/api/screening-settings", Scope: "screening-lists:write", Body: api.BodyJSON, Summary: "change the organisation's screening defaults (the hit threshold)", Handler: h.putSettings},
		{Method: "POST", Path: "/api/screenings", Scope: "screenings:write", Bucket: api.BucketScreening, Body: api.BodyJSON, Idempotent: true, Summary: "screen a name against the organisation's lists", Handler: h.createScreening},
		{Method: "GET", Path: "/api/screenings", Scope: "screenings:view", Summary: "list screenings, newest first (cursor)", Handler: h.listScreenings},
		{Method: "GET", Path: "/api/screenings/:id", Scope: "screenings:view", Summary: "get a screening with its hits", Handler: h.getScreening},
		{Method: "POST", Path: "/api/screenings/:id/hits/:hitId/resolve", Scope: "screenings:write", Body: api.BodyJSON, Summary: "resolve a hit as a false positive or a true match (key bound to a user)", Handler: h.resolveHit},
	})
}
