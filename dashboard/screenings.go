package dashboard

import (
	"net/http"
	"net/url"

	scr "github.com/svcplatform/svc/internal/screening"
)

// screenings lists the organisation's screenings, newest first, a page at a time (the API's
// cursor), filtered by status and name.
func (d *Dashboard) screenings(q *request) {
	a, ok := q.get("/api/screenings", q.listQuery("status", "q", "cursor"))
	if !ok {
		return
	}
	q.render(http.StatusOK, "screenings", view{Title: "Screenings", Section: "screenings",
		Data: q.newListData(a, Prefix+"/screenings", []string{scr.StatusClear, scr.StatusPotentialMatch}, "Name")})
}

// screening is one screening with its hits, each explained feature by feature, and the
// resolve form of every unresolved hit.
func (d *Dashboard) screening(q *request) {
	q.showScreening(http.StatusOK, "", nil)
}

func (q *request) showScreening(status int, refusal string, refused *answer) {
	a, ok := q.get("/api/screenings/"+url.PathEscape(q.r.PathValue("id")), nil)
	if !ok {
		return
	}
	s := a.Data()
	q.render(status, "screening", withRefusal(view{Title: "Screening of " + str(s["fullName"]), Section: "screenings", Data: s, People: q.people()}, refusal, refused))
}

// resolveHit records a false positive or a true match through the API (the hit's state
// machine, the visitor as reviewer, the audit log).
func (d *Dashboard) resolveHit(q *request) {
	id := url.PathEscape(q.r.PathValue("id"))
	a := q.call(http.MethodPost, "/api/screenings/"+id+"/hits/"+url.PathEscape(q.r.PathValue("hitId"))+"/resolve", nil,
		map[string]string{"decision": q.form("decision"), "comment": q.form("comment")})
	q.acted(a, Prefix+"/screenings/"+id+"?done=resolved", q.showScreening)
}
