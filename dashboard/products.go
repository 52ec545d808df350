package dashboard

import (
	"net/http"
	"net/url"
)

// The product pages (screenings, fraud, statements, identity) share these: a list page passes
// its filters and position through to the API as they are, and an action answers as every
// dashboard form does.

// listQuery is the API query of a list page: limit 50 and the page's own parameters among keys
// (filters, cursor or page) as the visitor's URL has them; the API validates them.
func (q *request) listQuery(keys ...string) url.Values {
	in := q.r.URL.Query()
	out := url.Values{"limit": {"50"}}
	for _, k := range keys {
		if v := in.Get(k); v != "" {
			out.Set(k, v)
		}
	}
	return out
}

// listData is what a list page shows: its rows, its status filter, and where the next page is
// (NextCursor for a cursor list; NextPage, 0 at the end, for an offset list).
type listData struct {
	Rows []any
	// Path is the list page's path, Query its URL query (the filters a next-page link keeps).
	Path     string
	Query    url.Values
	Statuses []string
	// Search labels the q filter; "" when the list has none.
	Search     string
	NextCursor string
	NextPage   int
}

// newListData reads a list answer of either style for the page at path.
func (q *request) newListData(a answer, path string, statuses []string, search string) listData {
	d := listData{Rows: a.Rows(), Path: path, Query: q.r.URL.Query(), Statuses: statuses, Search: search, NextCursor: str(a.Body["nextCursor"])}
	page, _ := a.Body["page"].(float64)
	meta, _ := a.Body["meta"].(map[string]any)
	if pages, _ := meta["pages"].(float64); page > 0 && page < pages {
		d.NextPage = int(page) + 1
	}
	return d
}

// acted answers an action's API answer: on success to next (a page with ?done=…); sign in
// again or the not-found page as any read; otherwise again shows the form's page with the
// refusal in plain words and the API's field errors.
func (q *request) acted(a answer, next string, again func(status int, refusal string, refused *answer)) {
	q.actedIn(a, next, plainWords, again)
}

// actedIn is acted with a product's own plain words for its refusals (caseWords, sarWords).
func (q *request) actedIn(a answer, next string, words func(answer, string) string, again func(status int, refusal string, refused *answer)) {
	switch {
	case a.OK():
		q.redirect(next)
	case a.Status == http.StatusUnauthorized || a.Status == http.StatusNotFound:
		q.refused(a)
	default:
		again(a.Status, words(a, q.role()), &a)
	}
}

// withRefusal is v with a refused form's words and field errors (refused may be nil).
func withRefusal(v view, refusal string, refused *answer) view {
	v.Refusal = refusal
	if refused != nil {
		v.FieldErrors = refused.FieldErrors()
	}
	return v
}
