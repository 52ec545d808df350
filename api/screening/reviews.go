package screening

import (
	"errors"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	scr "github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/internal/statemachine"
	"github.com/svcplatform/svc/store"
)

// Hit reviews (screening product): a reviewer, acting through a key bound to a user (SPEC
// 5.5), resolves a hit once; a false positive on a customer's screening is remembered and
// suppressed in later screenings and monitoring until the entity's list record changes.

// maxComment bounds a reviewer's comment.
const maxComment = 2000

// resolveRequest is the body of POST /api/screenings/{id}/hits/{hitId}/resolve.
type resolveRequest struct {
	Decision string `json:"decision"`
	Comment  string `json:"comment"`
}

// resolveHit records a reviewer's decision on a hit: 404 for another organisation's
// screening or an unknown hit, 422 for a key not bound to a user, 400 for a bad decision or
// comment, 409 when the hit is already resolved; 200 with the screening.
func (h *Handler) resolveHit(c *gin.Context) {
	ctx := c.Request.Context()
	org := api.PrincipalOf(c).OrgID
	if _, err := h.Store.Screening.GetScreening(ctx, org, api.PathID(c)); !api.Loaded(c, err) {
		return
	}
	p, ok := api.RequireUser(c)
	if !ok {
		return
	}
	var req resolveRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := scr.FieldErrors{}
	if d := scr.Decision(req.Decision); !d.Valid() {
		fe.Add("decision", "must be false_positive or true_match")
	}
	switch {
	case !utf8.ValidString(req.Comment):
		fe.Add("comment", "must be valid UTF-8")
	case utf8.RuneCountInString(req.Comment) > maxComment:
		fe.Add("comment", "must be at most %d characters", maxComment)
	case containsControl(req.Comment):
		fe.Add("comment", "must not contain control characters other than line breaks and tabs")
	}
	if len(fe) > 0 {
		api.ValidationFailed(c, api.FieldErrors(fe))
		return
	}
	api.AuditResource(c, api.PathID(c)+"/"+c.Param("hitId"))
	r, err := h.Store.Screening.ResolveHit(ctx, store.HitResolution{OrgID: org, ScreeningID: api.PathID(c), HitID: c.Param("hitId"),
		To: scr.Decision(req.Decision), UserID: p.UserID, Comment: req.Comment, At: h.Now()})
	var sc *statemachine.ConflictError
	if errors.As(err, &sc) {
		api.StateConflict(c, sc.From, sc.To)
		return
	}
	if api.Loaded(c, err) {
		api.OK(c, newScreeningView(r))
	}
}

func containsControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' {
			return true
		}
	}
	return false
}
