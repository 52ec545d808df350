package api

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/store"
)

// Lists (SPEC 4.4 to 4.6). A list handler declares what it supports in a ListSpec, parses the
// query string with ParseList (which answers 400 validation failed with details.fieldErrors naming
// every bad parameter), queries with store.ListOffset or store.ListCursor plus
// ListQuery.Filter.Scope, and answers with List or CursorList:
//
//	q, ok := ParseList(c, ListSpec{MaxLimit: 100, Filters: []string{FilterQ, FilterStatus, FilterFrom, FilterTo},
//		Statuses: []string{"pending", "running", "succeeded", "failed", "cancelled"}})
//	if !ok {
//		return
//	}
//	rows, total, err := store.ListOffset[store.Execution](c.Request.Context(), s.Store.DB, q.Page, "created_at DESC, id DESC",
//		store.ForOrg(PrincipalOf(c).OrgID), q.Filter.Scope(store.FilterColumns{Text: []string{"workflow_slug"}, Status: "status"}))
//	...
//	List(c, views, total, q.Page.Page, q.Page.Limit, summary) // summary only when q.Filter.Summary
//
// For a cursor feed set ListSpec.Cursor, use q.Cursor with store.ListCursor, and answer
// CursorList(c, views, next.String() or "", nil). A query parameter a list does not declare is
// refused (400), so a typo never silently returns everything.

// The common list filters of SPEC 4.6, by query parameter name.
const (
	FilterQ          = "q"
	FilterStatus     = "status"
	FilterFrom       = "from"
	FilterTo         = "to"
	FilterCustomerID = "customerId"
	FilterExternalID = "externalId"
	FilterSummary    = "summary"
)

// DefaultPageSize is the page size when limit is absent (SPEC 8.3).
const DefaultPageSize = 20

// ListSpec declares what one list endpoint accepts.
type ListSpec struct {
	// MaxLimit caps limit for this endpoint; 0 means 100.
	MaxLimit int
	// Cursor selects cursor pagination (limit, cursor) instead of offset (page, limit).
	Cursor bool
	// Filters lists the common filters supported (FilterQ, FilterStatus, ...).
	Filters []string
	// Statuses, if set, are the accepted values of status.
	Statuses []string
	// Extra names further query parameters the handler reads itself with c.Query.
	Extra []string
}

// ListQuery is a parsed list request.
type ListQuery struct {
	// Page is set for offset lists (Page >= 1, 1 <= Limit <= MaxLimit).
	Page store.Offset
	// Cursor is set for cursor lists.
	Cursor store.CursorPage
	Filter store.Filter
}

// ParseList parses and validates the query string against spec. On failure it answers 400 and
// returns false.
func ParseList(c *gin.Context, spec ListSpec) (ListQuery, bool) {
	maxLimit := spec.MaxLimit
	if maxLimit <= 0 {
		maxLimit = 100
	}
	fe := FieldErrors{}
	known := map[string]bool{"limit": true}
	if spec.Cursor {
		known["cursor"] = true
	} else {
		known["page"] = true
	}
	for _, f := range spec.Filters {
		known[f] = true
	}
	for _, f := range spec.Extra {
		known[f] = true
	}
	query := c.Request.URL.Query()
	for name, vals := range query {
		switch {
		case !known[name]:
			fe.Add(name, "unknown query parameter")
		case len(vals) > 1:
			fe.Add(name, "must be given once")
		}
	}
	get := func(name string) string { return strings.TrimSpace(query.Get(name)) }
	var q ListQuery

	limit := min(DefaultPageSize, maxLimit)
	if v := get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxLimit {
			fe.Add("limit", fmt.Sprintf("must be an integer from 1 to %d", maxLimit))
		} else {
			limit = n
		}
	}
	if spec.Cursor {
		q.Cursor.Limit = limit
		if v := get("cursor"); v != "" {
			cur, err := store.ParseCursor(v)
			if err != nil {
				fe.Add("cursor", "must be the nextCursor of a previous page")
			} else {
				q.Cursor.After = &cur
			}
		}
	} else {
		q.Page = store.Offset{Page: 1, Limit: limit}
		if v := get("page"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1_000_000 {
				fe.Add("page", "must be an integer from 1 to 1000000")
			} else {
				q.Page.Page = n
			}
		}
	}

	f := &q.Filter
	f.Q = get(FilterQ)
	if len(f.Q) > 200 {
		fe.Add(FilterQ, "must be at most 200 characters")
	}
	for _, st := range strings.Split(get(FilterStatus), ",") {
		if st = strings.TrimSpace(st); st == "" {
			continue
		}
		if len(spec.Statuses) > 0 && !slices.Contains(spec.Statuses, st) {
			fe.Add(FilterStatus, fmt.Sprintf("%q is not one of %s", st, strings.Join(spec.Statuses, ", ")))
			continue
		}
		f.Status = append(f.Status, st)
	}
	if v := get(FilterFrom); v != "" {
		t, _, err := parseInstant(v)
		if err != nil {
			fe.Add(FilterFrom, "must be an ISO 8601 date or timestamp")
		} else {
			f.From = &t
		}
	}
	if v := get(FilterTo); v != "" {
		t, dateOnly, err := parseInstant(v)
		if err != nil {
			fe.Add(FilterTo, "must be an ISO 8601 date or timestamp")
		} else {
			if dateOnly { // inclusive whole day: up to the start of the next day, excluded
				t, f.ToExclusive = t.AddDate(0, 0, 1), true
			}
			f.To = &t
			if f.From != nil && (f.From.After(t) || f.ToExclusive && f.From.Equal(t)) {
				fe.Add(FilterTo, "must not be before from")
			}
		}
	}
	for name, dst := range map[string]*string{FilterCustomerID: &f.CustomerID, FilterExternalID: &f.ExternalID} {
		*dst = get(name)
		if len(*dst) > 200 {
			fe.Add(name, "must be at most 200 characters")
		}
	}
	switch get(FilterSummary) {
	case "", "false":
	case "true":
		f.Summary = true
	default:
		fe.Add(FilterSummary, "must be true or false")
	}
	if fe.Any() {
		ValidationFailed(c, fe)
		return ListQuery{}, false
	}
	return q, true
}

// parseInstant reads an ISO 8601 timestamp (RFC 3339) or a date (YYYY-MM-DD, midnight UTC).
func parseInstant(v string) (time.Time, bool, error) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), false, nil
	}
	t, err := time.Parse(time.DateOnly, v)
	return t.UTC(), true, err
}

// ListRows answers one page of an offset list, showing each row through view.
func ListRows[T, V any](c *gin.Context, rows []T, total int64, q ListQuery, view func(*T) V, summary map[string]int64) {
	List(c, Views(rows, view), total, q.Page.Page, q.Page.Limit, summary)
}

// CursorRows answers one page of a cursor list, showing each row through view; next is nil at the end.
func CursorRows[T, V any](c *gin.Context, rows []T, next *store.Cursor, view func(*T) V, summary map[string]int64) {
	CursorList(c, Views(rows, view), NextCursor(next), summary)
}

// Views shows each row through view; never nil, so an empty list is [] in JSON.
func Views[T, V any](rows []T, view func(*T) V) []V {
	out := make([]V, 0, len(rows))
	for i := range rows {
		out = append(out, view(&rows[i]))
	}
	return out
}

// NonNil is s, or an empty slice when s is nil, so it shows as [] in JSON, never null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// NextCursor is the nextCursor value for CursorList: "" at the end.
func NextCursor(c *store.Cursor) string {
	if c == nil {
		return ""
	}
	return c.String()
}

// SummaryOf is a list's summary=true counts with every status present, 0 included, so that a
// client reads each status without checking for it.
func SummaryOf(counts map[string]int64, statuses []string) map[string]int64 {
	for _, st := range statuses {
		if _, ok := counts[st]; !ok {
			counts[st] = 0
		}
	}
	return counts
}
