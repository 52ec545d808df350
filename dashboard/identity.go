package dashboard

import (
	"net/http"
	"net/url"

	idv "github.com/svcplatform/svc/internal/identity"
)

// verifications lists the identity verifications, newest first (review ones by choice),
// a page at a time.
func (d *Dashboard) verifications(q *request) {
	a, ok := q.get("/api/identity/verifications", q.listQuery("status", "q", "page"))
	if !ok {
		return
	}
	var statuses []string
	for _, s := range idv.Table.States() {
		statuses = append(statuses, string(s))
	}
	q.render(http.StatusOK, "verifications", view{Title: "Identity verifications", Section: "verifications", Data: q.newListData(a, Prefix+"/verifications", statuses, "Reference")})
}

type verificationData struct {
	V map[string]any
	// Decisions are the reviewer's choices, offered while the verification is in review.
	Decisions []idv.ReviewDecision
}

// verification is one verification: the claim, every attempt with its checks and their
// reason codes, and the reviewer's decision form while it is in review.
func (d *Dashboard) verification(q *request) {
	q.showVerification(http.StatusOK, "", nil)
}

func (q *request) showVerification(status int, refusal string, refused *answer) {
	a, ok := q.get("/api/identity/verifications/"+url.PathEscape(q.r.PathValue("id")), nil)
	if !ok {
		return
	}
	q.render(status, "verification", withRefusal(view{Title: "Verification " + str(a.Data()["id"]), Section: "verifications",
		Data: verificationData{V: a.Data(), Decisions: idv.ReviewDecisions()}, People: q.people()}, refusal, refused))
}

// reviewVerification decides a verification in review through the API (the verification
// workflow's review Update, whose validator refuses any other state).
func (d *Dashboard) reviewVerification(q *request) {
	id := url.PathEscape(q.r.PathValue("id"))
	a := q.call(http.MethodPost, "/api/identity/verifications/"+id+"/review", nil,
		map[string]string{"decision": q.form("decision"), "comment": q.form("comment")})
	q.acted(a, Prefix+"/verifications/"+id+"?done=verification-reviewed", q.showVerification)
}

// attemptImage answers an attempt's front or back image through the API, which records every
// read in the audit log (the visitor, their session). A PNG or JPEG is shown as it is; any
// other format (PDF, TIFF) is downloaded, never opened on the dashboard's origin.
func (d *Dashboard) attemptImage(q *request) {
	side := q.r.PathValue("side")
	if side != "front" && side != "back" {
		q.notFound()
		return
	}
	id := q.r.PathValue("id")
	a := q.call(http.MethodGet, "/api/identity/attempts/"+url.PathEscape(id)+"/images/"+side, nil, nil)
	if !a.OK() {
		q.refused(a)
		return
	}
	ct := a.Header.Get("Content-Type")
	disposition := "inline"
	if ct != "image/png" && ct != "image/jpeg" {
		ct, disposition = "application/octet-stream", `attachment; filename="`+url.PathEscape(id)+"-"+side+`"`
	}
	q.w.Header().Set("Content-Type", ct)
	q.w.Header().Set("Content-Disposition", disposition)
	_, _ = q.w.Write(a.Raw)
}
