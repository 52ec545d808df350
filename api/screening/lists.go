package screening

import (
	"fmt"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/ids"
	scr "github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/store"
)

// Organisation lists (screening product): a list the organisation keeps itself, created with
// its entries; each entry is screened like an entity of a sanctions list.

const (
	// maxListEntries bounds the entries of a list created through the API.
	maxListEntries = 10_000
	// maxListBody is the body cap of a list creation.
	maxListBody = 16 << 20
)

// listView is a list as the API shows it.
type listView struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Version     int    `json:"version"`
	EntityCount int    `json:"entityCount"`
	ContentHash string `json:"contentHash"`
	CreatedAt   string `json:"createdAt"`
	RefreshedAt string `json:"refreshedAt"`
}

func newListView(l *store.ScreeningList) listView {
	return listView{ID: l.ID, Name: l.Name, Kind: l.Kind, Version: l.Version, EntityCount: l.EntityCount,
		ContentHash: l.ContentHash, CreatedAt: api.Timestamp(l.CreatedAt), RefreshedAt: api.Timestamp(l.RefreshedAt)}
}

// entryRequest is one entry of a list.
type entryRequest struct {
	ID         string   `json:"id"`
	Type       string   `json:"type"`
	Name       string   `json:"name"`
	Aliases    []string `json:"aliases"`
	BirthDates []string `json:"birthDates"`
	Countries  []string `json:"countries"`
}

// listRequest is the body of POST /api/screening-lists.
type listRequest struct {
	Name    string         `json:"name"`
	Entries []entryRequest `json:"entries"`
	// ExternalID makes the creation idempotent (middleware).
	ExternalID string `json:"externalId"`
}

// entities validates the entries and returns them as the engine's entities.
func (r *listRequest) entities(fe scr.FieldErrors) []scr.Entity {
	if len(r.Entries) > maxListEntries {
		fe.Add("entries", "must hold at most %d entries", maxListEntries)
		return nil
	}
	seen := map[string]bool{}
	out := make([]scr.Entity, 0, len(r.Entries))
	for i, e := range r.Entries {
		prefix := fmt.Sprintf("entries[%d].", i)
		if seen[e.ID] {
			fe.Add(prefix+"id", "is used by another entry")
		}
		seen[e.ID] = true
		out = append(out, e.entity(fe, prefix))
	}
	return out
}

// entity validates one entry (fields named with prefix) and returns it as an engine entity.
func (e *entryRequest) entity(fe scr.FieldErrors, prefix string) scr.Entity {
	if e.ID == "" || len(e.ID) > 128 {
		fe.Add(prefix+"id", "is required, at most 128 characters")
	}
	scr.CheckName(fe, prefix+"name", e.Name)
	t := scr.CheckEntityType(fe, prefix+"type", e.Type)
	ent := scr.Entity{ID: e.ID, Type: t, Name: e.Name}
	if len(e.Aliases) > 100 {
		fe.Add(prefix+"aliases", "must hold at most 100 aliases")
		return ent
	}
	for k, a := range e.Aliases {
		scr.CheckName(fe, fmt.Sprintf("%saliases[%d]", prefix, k), a)
		ent.Aliases = append(ent.Aliases, a)
	}
	for k, s := range e.BirthDates {
		d, err := scr.ParseDate(s)
		if err != nil {
			fe.Add(fmt.Sprintf("%sbirthDates[%d]", prefix, k), "must be a date: YYYY, YYYY-MM or YYYY-MM-DD")
			continue
		}
		ent.BirthDates = append(ent.BirthDates, d)
	}
	for k, c := range e.Countries {
		if cc := scr.CheckCountry(fe, fmt.Sprintf("%scountries[%d]", prefix, k), c); cc != "" {
			ent.Countries = append(ent.Countries, cc)
		}
	}
	return ent
}

// createList creates an organisation list with its entries (version 1). 400 names every
// bad entry field; 201 with the list.
func (h *Handler) createList(c *gin.Context) {
	var req listRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := scr.FieldErrors{}
	if req.Name == "" || len(req.Name) > 200 {
		fe.Add("name", "is required, at most 200 characters")
	}
	entities := req.entities(fe)
	if len(fe) > 0 {
		api.ValidationFailed(c, api.FieldErrors(fe))
		return
	}
	now := h.Now().UTC()
	l := &store.ScreeningList{ID: ids.New(ids.List), OrgID: api.PrincipalOf(c).OrgID, Name: req.Name, Kind: scr.KindOrganisation,
		CreatedAt: now, RefreshedAt: now}
	if _, err := h.Store.Screening.CreateList(c.Request.Context(), l, entities, false); err != nil {
		api.Internal(c, err)
		return
	}
	api.Created(c, newListView(l))
}

// listLists pages through the organisation's lists, newest first; q matches the name.
func (h *Handler) listLists(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Filters: []string{api.FilterQ, api.FilterFrom, api.FilterTo}})
	if !ok {
		return
	}
	rows, total, err := h.Store.Screening.ListLists(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Page, q.Filter)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.ListRows(c, rows, total, q, newListView, nil)
}
