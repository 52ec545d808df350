package screening

import (
	"fmt"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/ids"
	scr "github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/store"
)

// Screenings (screening product, SPEC 4.1): a name, with optional birth date, country and
// entity type, screened against the organisation's lists; each hit explains itself.

// screeningStatuses are the values of the status filter.
var screeningStatuses = []string{scr.StatusClear, scr.StatusPotentialMatch}

// hitView is one hit as the API shows it.
type hitView struct {
	ID          string          `json:"id"`
	ListID      string          `json:"listId"`
	EntityID    string          `json:"entityId"`
	Name        string          `json:"name"`
	MatchedName string          `json:"matchedName"`
	Score       float64         `json:"score"`
	Explanation scr.Explanation `json:"explanation"`
	Suppressed  bool            `json:"suppressed"`
	Decision    string          `json:"decision"`
	Comment     *string         `json:"comment"`
	ResolvedBy  *string         `json:"resolvedBy"`
	ResolvedAt  *string         `json:"resolvedAt"`
}

// screeningView is a screening as the API shows it.
type screeningView struct {
	ID         string    `json:"id"`
	Status     string    `json:"status"`
	FullName   string    `json:"fullName"`
	BirthDate  *string   `json:"birthDate"`
	Country    *string   `json:"country"`
	EntityType *string   `json:"entityType"`
	CustomerID *string   `json:"customerId"`
	ExternalID *string   `json:"externalId"`
	Lists      []string  `json:"lists"`
	Threshold  float64   `json:"threshold"`
	HitCount   int       `json:"hitCount"`
	Trigger    string    `json:"trigger"`
	Hits       []hitView `json:"hits"`
	CreatedAt  string    `json:"createdAt"`
}

func newScreeningView(r *store.ScreeningRecord) screeningView {
	v := screeningView{ID: r.ID, Status: r.Status, FullName: r.FullName, BirthDate: api.Nullable(r.BirthDate),
		Country: api.Nullable(r.Country), EntityType: api.Nullable(r.EntityType), CustomerID: api.Nullable(r.CustomerID),
		ExternalID: api.Nullable(r.ExternalID), Lists: api.NonNil(r.Lists), Threshold: r.Threshold, HitCount: r.HitCount,
		Trigger: r.Trigger, Hits: make([]hitView, 0, len(r.Hits)), CreatedAt: api.Timestamp(r.CreatedAt)}
	for _, h := range r.Hits {
		hv := hitView{ID: h.ID, ListID: h.ListID, EntityID: h.EntityID, Name: h.Name, MatchedName: h.MatchedName,
			Score: h.Score, Explanation: h.Explanation, Suppressed: h.Suppressed, Decision: string(h.Review()),
			Comment: api.Nullable(h.Comment), ResolvedBy: api.Nullable(h.ResolvedBy)}
		if h.ResolvedAt != nil {
			at := api.Timestamp(*h.ResolvedAt)
			hv.ResolvedAt = &at
		}
		v.Hits = append(v.Hits, hv)
	}
	return v
}

// screeningRequest is the body of POST /api/screenings.
type screeningRequest struct {
	FullName   string   `json:"fullName"`
	BirthDate  string   `json:"birthDate"`
	Country    string   `json:"country"`
	EntityType string   `json:"entityType"`
	CustomerID string   `json:"customerId"`
	Lists      []string `json:"lists"`
	Threshold  *float64 `json:"threshold"`
	// ExternalID makes the screening idempotent (middleware).
	ExternalID string `json:"externalId"`
}

// createScreening screens a name against the organisation's lists (all of them, or those
// named in lists) and stores the result: 201 with status clear or potential_match and the
// hits at or above the threshold (the engine's default when none is given).
func (h *Handler) createScreening(c *gin.Context) {
	var req screeningRequest
	if !api.BindJSON(c, &req) {
		return
	}
	ctx := c.Request.Context()
	org := api.PrincipalOf(c).OrgID
	fe := scr.FieldErrors{}
	scr.CheckName(fe, "fullName", req.FullName)
	birth := scr.CheckBirthDate(fe, "birthDate", req.BirthDate, h.Now())
	country := scr.CheckCountry(fe, "country", req.Country)
	typ := scr.CheckEntityType(fe, "entityType", req.EntityType)
	threshold := scr.CheckThreshold(fe, "threshold", req.Threshold)
	if len(req.CustomerID) > 40 {
		fe.Add("customerId", "must be at most 40 characters")
	}
	lists, err := h.Store.Screening.Lists(ctx, org)
	if err != nil {
		api.Internal(c, err)
		return
	}
	selected := selectLists(fe, lists, req.Lists)
	if len(fe) > 0 {
		api.ValidationFailed(c, api.FieldErrors(fe))
		return
	}
	if req.CustomerID != "" {
		// Another organisation's customer is 404, like any foreign id.
		if _, err := h.Store.Customers.Get(ctx, org, req.CustomerID); !api.Loaded(c, err) {
			return
		}
	}
	if threshold == 0 {
		if threshold, err = h.screener.DefaultThreshold(ctx, org); err != nil {
			api.Internal(c, err)
			return
		}
	}
	q := scr.Query{Name: req.FullName, Type: typ, BirthDate: birth, Country: country, Threshold: threshold}
	r := &store.ScreeningRecord{ID: ids.New(ids.Screening), OrgID: org, CustomerID: req.CustomerID, ExternalID: req.ExternalID,
		FullName: req.FullName, EntityType: string(typ), Country: country, Threshold: threshold, Trigger: scr.TriggerAPI, CreatedAt: h.Now().UTC()}
	if birth != nil {
		r.BirthDate = birth.String()
	}
	hits, err := h.screener.Search(ctx, q, selected)
	if err == nil {
		err = h.screener.Record(ctx, r, hits)
	}
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.Created(c, newScreeningView(r))
}

// selectLists returns the lists a screening names (all when none), recording unknown ids.
func selectLists(fe scr.FieldErrors, lists []store.ScreeningList, want []string) []store.ScreeningList {
	if len(want) == 0 {
		return lists
	}
	if len(want) > 50 {
		fe.Add("lists", "must name at most 50 lists")
		return nil
	}
	byID := map[string]store.ScreeningList{}
	for _, l := range lists {
		byID[l.ID] = l
	}
	var out []store.ScreeningList
	for i, id := range want {
		l, ok := byID[id]
		if !ok {
			fe.Add(fmt.Sprintf("lists[%d]", i), "is not a list of the organisation")
			continue
		}
		out = append(out, l)
	}
	return out
}

// listScreenings pages through the organisation's screenings, newest first (cursor).
func (h *Handler) listScreenings(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Cursor: true, Statuses: screeningStatuses,
		Filters: []string{api.FilterQ, api.FilterStatus, api.FilterFrom, api.FilterTo, api.FilterCustomerID, api.FilterExternalID}})
	if !ok {
		return
	}
	rows, next, err := h.Store.Screening.ListScreenings(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Cursor, q.Filter)
	if !api.Loaded(c, err) {
		return
	}
	api.CursorRows(c, rows, next, newScreeningView, nil)
}

// getScreening answers one screening with its hits.
func (h *Handler) getScreening(c *gin.Context) {
	r, err := h.Store.Screening.GetScreening(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if api.Loaded(c, err) {
		api.OK(c, newScreeningView(r))
	}
}
