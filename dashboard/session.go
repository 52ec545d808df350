package dashboard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/store"
)

// loginCSRFCookie carries the sign-in form's CSRF token before there is a session (double
// submit: the form's hidden field must equal it), so no other site can sign a visitor in.
const loginCSRFCookie = "svc_login_csrf"

// authenticate runs next with the visitor's session and user, or sends them to sign in: with
// "your session has expired" when they had a session that ended.
func (d *Dashboard) authenticate(q *request, next func()) {
	token, err := q.r.Cookie(api.SessionCookie)
	if err != nil || token.Value == "" {
		q.redirect(Prefix + "/login?next=" + url.QueryEscape(q.r.URL.RequestURI()))
		return
	}
	sess, u, err := d.Store.Sessions.ByTokenHashWithUser(q.r.Context(), auth.HashKey(token.Value))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		d.Logger.Error("dashboard session", "error", err)
		q.fail(http.StatusServiceUnavailable, "The service is unavailable right now. Try again in a moment.")
		return
	}
	if sess == nil || !sess.Active(d.Now()) || u.Disabled {
		q.redirect(Prefix + "/login?expired=1")
		return
	}
	q.sess, q.user = sess, u
	next()
}

// csrfOK reports whether the form carries the session's CSRF token.
func (q *request) csrfOK() bool {
	got := q.r.PostFormValue("csrf")
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(q.sess.CSRFToken)) == 1
}

type loginData struct {
	Email, Next, LoginCSRF string
	Expired, SignedOut     bool
}

// loginPage shows the sign-in form.
func (d *Dashboard) loginPage(q *request) {
	q.showLogin(http.StatusOK, "", "")
}

func (q *request) showLogin(status int, email, refusal string) {
	token := randomToken()
	http.SetCookie(q.w, &http.Cookie{
		Name: loginCSRFCookie, Value: token, Path: Prefix + "/login", HttpOnly: true,
		Secure: q.d.secureCookies(q.r), SameSite: http.SameSiteStrictMode, MaxAge: 3600,
	})
	qs := q.r.URL.Query()
	next := qs.Get("next")
	if next == "" {
		next = q.r.PostFormValue("next")
	}
	q.render(status, "login", view{Title: "Sign in", Refusal: refusal, Data: loginData{
		Email: email, Next: safeNext(next), LoginCSRF: token,
		Expired: qs.Get("expired") != "", SignedOut: qs.Get("signedout") != "",
	}})
}

// login signs in through the API's POST /api/auth/login (its rate limit, its password check,
// its session and cookies, its audit entry) and passes the session cookies on.
func (d *Dashboard) login(q *request) {
	c, err := q.r.Cookie(loginCSRFCookie)
	got := q.r.PostFormValue("csrf")
	if err != nil || got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(c.Value)) != 1 {
		q.showLogin(http.StatusForbidden, q.form("email"), "This form has expired. Try again.")
		return
	}
	a := q.call(http.MethodPost, "/api/auth/login", nil, map[string]string{
		"email": q.form("email"), "password": q.r.PostFormValue("password"),
	})
	switch {
	case a.OK():
		for _, sc := range a.Header.Values("Set-Cookie") {
			q.w.Header().Add("Set-Cookie", sc)
		}
		http.SetCookie(q.w, &http.Cookie{Name: loginCSRFCookie, Path: Prefix + "/login", MaxAge: -1})
		q.redirect(safeNext(q.r.PostFormValue("next")))
	case a.Status == http.StatusUnauthorized:
		q.showLogin(http.StatusUnauthorized, q.form("email"), "The email or password is wrong.")
	case a.Status == http.StatusBadRequest:
		q.showLogin(http.StatusBadRequest, q.form("email"), "Enter your email and your password.")
	default:
		q.showLogin(a.Status, q.form("email"), plainWords(a, ""))
	}
}

// logout ends the session on the server (the API's logout revokes it) and clears its cookies.
func (d *Dashboard) logout(q *request) {
	a := q.call(http.MethodPost, "/api/auth/logout", nil, nil)
	for _, sc := range a.Header.Values("Set-Cookie") {
		q.w.Header().Add("Set-Cookie", sc)
	}
	q.redirect(Prefix + "/login?signedout=1")
}

// secureCookies mirrors the session cookie's Secure flag (api/accounts): set outside svc dev,
// and under svc dev too when it is served over TLS.
func (d *Dashboard) secureCookies(r *http.Request) bool {
	return !d.Dev || r.TLS != nil || strings.HasPrefix(d.Config.BaseURL(), "https://")
}

// safeNext is where to go after sign-in: a dashboard path, never another site.
func safeNext(next string) string {
	if !strings.HasPrefix(next, Prefix+"/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") ||
		strings.HasPrefix(next, Prefix+"/login") {
		return Prefix + "/"
	}
	return next
}

func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
