package dashboard

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/svcplatform/svc/internal/auth"
)

// keyScopeChoices are the scopes the create form offers as boxes; any other valid scope can be
// typed (the API validates them all).
var keyScopeChoices = []string{auth.ScopeRead, auth.ScopeWrite, auth.ScopeWebhooksManage, auth.ScopeAPIManage}

type keysData struct {
	Rows, Users  []any
	ScopeChoices []string
	// Form holds what was typed into a refused create form.
	Form map[string]string
}

// keys lists the organisation's keys (masked) with the create, rotate and revoke forms.
func (d *Dashboard) keys(q *request) {
	q.showKeys(http.StatusOK, "", nil)
}

func (q *request) showKeys(status int, refusal string, refused *answer) {
	keys, ok := q.get("/api/api-keys", url.Values{"limit": {"100"}})
	if !ok {
		return
	}
	users, ok := q.get("/api/users", url.Values{"limit": {"100"}})
	if !ok {
		return
	}
	v := view{Title: "API keys", Section: "keys", Refusal: refusal, Data: keysData{
		Rows: keys.Rows(), Users: users.Rows(), ScopeChoices: keyScopeChoices,
		Form: map[string]string{"name": q.form("name"), "actAsUserId": q.form("actAsUserId"), "expiresAt": q.form("expiresAt"), "moreScopes": q.form("moreScopes")},
	}}
	if refused != nil {
		v.FieldErrors = refused.FieldErrors()
	}
	q.render(status, "keys", v)
}

// createKey issues a key through the API and shows its value, this once: it is never shown
// again (the answer is not cached, and no page reads it back).
func (d *Dashboard) createKey(q *request) {
	_ = q.r.ParseForm()
	scopes := append([]string(nil), q.r.PostForm["scopes"]...)
	scopes = append(scopes, strings.FieldsFunc(q.form("moreScopes"), func(r rune) bool { return r == ',' || r == ' ' })...)
	body := map[string]any{"name": q.form("name"), "scopes": scopes}
	if u := q.form("actAsUserId"); u != "" {
		body["actAsUserId"] = u
	}
	if e := q.form("expiresAt"); e != "" {
		body["expiresAt"] = e + "T23:59:59Z" // the end of the chosen day, UTC
	}
	a := q.call(http.MethodPost, "/api/api-keys", nil, body)
	if !a.OK() {
		q.keyRefused(a)
		return
	}
	q.render(http.StatusOK, "key_created", view{Title: "Key created", Section: "keys", Data: a.Data()})
}

// rotateKey gives the key a new value (shown once); the old one keeps working 24 hours.
func (d *Dashboard) rotateKey(q *request) {
	a := q.call(http.MethodPost, "/api/api-keys/"+url.PathEscape(q.r.PathValue("id"))+"/rotate", nil, nil)
	if !a.OK() {
		q.keyRefused(a)
		return
	}
	q.render(http.StatusOK, "key_created", view{Title: "Key rotated", Section: "keys", Data: a.Data()})
}

// revokeKey revokes a key now.
func (d *Dashboard) revokeKey(q *request) {
	a := q.call(http.MethodDelete, "/api/api-keys/"+url.PathEscape(q.r.PathValue("id")), nil, nil)
	if !a.OK() {
		q.keyRefused(a)
		return
	}
	q.redirect(Prefix + "/keys?done=revoked")
}

func (q *request) keyRefused(a answer) {
	if a.Status == http.StatusUnauthorized || a.Status == http.StatusNotFound {
		q.refused(a)
		return
	}
	q.showKeys(a.Status, plainWords(a, q.role()), &a)
}
