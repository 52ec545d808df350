package dashboard

import (
	"net/http"
	"net/url"

	"github.com/svcplatform/svc/internal/auth"
)

type usersData struct {
	Rows  []any
	Roles []string
	Form  map[string]string
}

// users lists the organisation's users with their roles, the add form and the role and
// disabled changes.
func (d *Dashboard) users(q *request) {
	q.showUsers(http.StatusOK, "", nil)
}

func (q *request) showUsers(status int, refusal string, refused *answer) {
	a, ok := q.get("/api/users", url.Values{"limit": {"100"}})
	if !ok {
		return
	}
	v := view{Title: "Users and roles", Section: "users", Refusal: refusal, Data: usersData{
		Rows: a.Rows(), Roles: auth.Roles(), Form: map[string]string{"email": q.form("email"), "name": q.form("name"), "role": q.form("role")},
	}}
	if refused != nil {
		v.FieldErrors = refused.FieldErrors()
	}
	q.render(status, "users", v)
}

// createUser adds a user through the API.
func (d *Dashboard) createUser(q *request) {
	body := map[string]any{"email": q.form("email"), "name": q.form("name"), "role": q.form("role")}
	if p := q.r.PostFormValue("password"); p != "" {
		body["password"] = p
	}
	q.userAnswer(q.call(http.MethodPost, "/api/users", nil, body))
}

// updateUser changes a user's role or disabled flag through the API (which ends the user's
// sessions when they are disabled).
func (d *Dashboard) updateUser(q *request) {
	body := map[string]any{"role": q.form("role"), "disabled": q.form("disabled") == "true"}
	q.userAnswer(q.call(http.MethodPatch, "/api/users/"+url.PathEscape(q.r.PathValue("id")), nil, body))
}

func (q *request) userAnswer(a answer) {
	q.acted(a, Prefix+"/users?done=user", q.showUsers)
}
