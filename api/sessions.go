package api

import (
	"crypto/subtle"
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/store"
)

// Dashboard sessions (SPEC 5.1).
//
//   - Login: POST /api/auth/login {email, password}. Emails are unique across organisations, so
//     the email determines the organisation. Unknown email, wrong password, a disabled user and a
//     user without a password all answer 401 "invalid email or password" after the same bcrypt
//     work. Limited to 5 attempts per minute per client IP (bucket login).
//   - The session cookie (SessionCookie) holds 32 random bytes; only their SHA-256 is stored. It
//     is HttpOnly, SameSite=Lax, Path=/, Secure except under `svc dev` (Deps.Dev), and lasts
//     auth.session_ttl. Logging out, a password change and disabling the user end sessions.
//   - A session acts as its user with the user's role scopes (auth.RoleScopes); the same endpoints
//     accept it. An Authorization header, when present, takes precedence over the cookie.
//   - CSRF: every cookie-authenticated request other than GET/HEAD/OPTIONS must carry the
//     session's CSRF token in the X-CSRF-Token header (403 "missing or invalid CSRF token"
//     otherwise). The token is returned by login and also set in the readable cookie CSRFCookie,
//     so a script can send it after a reload; a cross-site page can neither read it nor make
//     the browser send the SameSite=Lax session cookie on a cross-site write. API-key requests need no token: a
//     browser never attaches an Authorization header on its own.
const (
	SessionCookie = "svc_session"
	CSRFCookie    = "svc_csrf"
	HeaderCSRF    = "X-CSRF-Token"
)

// authenticateSession resolves a session cookie to its user's principal, enforcing CSRF on writes.
func (s *Server) authenticateSession(c *gin.Context, token string) {
	// The session and its user in one query: every dashboard request makes it.
	sess, u, err := s.Store.Sessions.ByTokenHashWithUser(c.Request.Context(), auth.HashKey(token))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		Internal(c, err)
		return
	}
	if sess == nil || !sess.Active(s.Now()) || u.Disabled {
		Fail(c, http.StatusUnauthorized, MsgMissingBearer)
		return
	}
	switch c.Request.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		got := c.GetHeader(HeaderCSRF)
		if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(sess.CSRFToken)) != 1 {
			Fail(c, http.StatusForbidden, MsgCSRF)
			return
		}
	}
	c.Set(ctxPrincipal, SessionPrincipal(s.Config.Environment, sess, u))
	c.Next()
}

// SessionPrincipal is the principal of a dashboard session: its user, with the user's role's
// scopes, in environment.
func SessionPrincipal(environment string, sess *store.Session, u *store.User) *auth.Principal {
	return &auth.Principal{
		OrgID: sess.OrgID, Environment: environment, SessionID: sess.ID,
		UserID: u.ID, UserRole: u.Role, Scopes: auth.RoleScopes(u.Role),
	}
}
