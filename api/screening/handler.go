// Package screening is the screening product's API: an organisation's sanctions lists and
// screenings of a name against them, each hit explained.
package screening

import (
	"log/slog"
	"sync"
	"time"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/auth"
	scr "github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/store"
)

// Deps are what the screening API needs.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	Logger *slog.Logger
	// Now is the clock.
	Now func() time.Time
}

// Handler serves the screening product's endpoints.
type Handler struct {
	Deps
	indexes indexCache
}

// New builds the screening API.
func New(d Deps) *Handler {
	return &Handler{Deps: d, indexes: indexCache{m: map[string]*scr.Index{}}}
}

// Routes are the screening product's rows of the route table.
func (h *Handler) Routes() []api.Route {
	return api.ForProduct(auth.ProductScreening, []api.Route{
		{Method: "POST", Path: "/api/screening-lists", Scope: "screening-lists:write", Body: api.BodyJSON, MaxBody: maxListBody, Idempotent: true, Summary: "create an organisation list with its entries", Handler: h.createList},
		{Method: "GET", Path: "/api/screening-lists", Scope: "screening-lists:view", Summary: "list the organisation's screening lists with their version and entity count", Handler: h.listLists},
		{Method: "POST", Path: "/api/screenings", Scope: "screenings:write", Bucket: api.BucketScreening, Body: api.BodyJSON, Idempotent: true, Summary: "screen a name against the organisation's lists", Handler: h.createScreening},
		{Method: "GET", Path: "/api/screenings", Scope: "screenings:view", Summary: "list screenings, newest first (cursor)", Handler: h.listScreenings},
		{Method: "GET", Path: "/api/screenings/:id", Scope: "screenings:view", Summary: "get a screening with its hits", Handler: h.getScreening},
	})
}

// maxIndexes bounds the list versions kept indexed in memory.
const maxIndexes = 256

// indexCache keeps the index of each list version screened recently: a version never
// changes, so its key is the list id and version number.
type indexCache struct {
	mu sync.Mutex
	m  map[string]*scr.Index
}

func (c *indexCache) get(key string, build func() (*scr.Index, error)) (*scr.Index, error) {
	c.mu.Lock()
	ix, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return ix, nil
	}
	ix, err := build()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= maxIndexes {
		clear(c.m)
	}
	c.m[key] = ix
	c.mu.Unlock()
	return ix, nil
}
