package api

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/auth"
	"github.com/svcplatform/svc/ids"
	"github.com/svcplatform/svc/store"
)

// Dashboard sessions (SPEC 5.1).
//
//   - Login: POST /api/auth/login {email, password}. Emails are unique across organisations, so
//     the email determines the organisation. Unknown email, wrong password, a disabled user and a
//     user without a password all answer 401 "invalid email or password" after the same bcrypt
//     work. Limited to 5 attempts per minute per client IP (bucket login).
//   - The session cookie (SessionCookie) holds 32 random bytes; only their SHA-256 is stored. It
//     is HttpOnly, SameSite=Strict, Path=/, Secure when the API is served over HTTPS, and lasts
//     auth.session_ttl. Logging out, a password change and disabling the user end sessions.
//   - A session acts as its user with the user's role scopes (auth.RoleScopes); the same endpoints
//     accept it. An Authorization header, when present, takes precedence over the cookie.
//   - CSRF: every cookie-authenticated request other than GET/HEAD/OPTIONS must carry the
//     session's CSRF token in the X-CSRF-Token header (403 "missing or invalid CSRF token"
//     otherwise). The token is returned by login and also set in the readable cookie CSRFCookie,
//     so the dashboard can send it after a reload; a cross-site page can neither read it nor make
//     the browser send the SameSite=Strict session cookie. API-key requests need no token: a
//     browser never attaches an Authorization header on its own.
const (
	SessionCookie = "svc_session"
	CSRFCookie    = "svc_csrf"
	HeaderCSRF    = "X-CSRF-Token"
)

type loginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

type loginView struct {
	User         userView `json:"user"`
	Organization orgView  `json:"organization"`
	Environment  string   `json:"environment"`
	SessionID    string   `json:"sessionId"`
	CSRFToken    string   `json:"csrfToken"`
	ExpiresAt    string   `json:"expiresAt"`
}

type orgView struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// login checks email and password and starts a session.
func (s *Server) login(c *gin.Context) {
	var req loginRequest
	if !BindJSON(c, &req) {
		return
	}
	fe := FieldErrors{}
	if strings.TrimSpace(req.Email) == "" || len(req.Email) > 320 {
		fe.Add("email", "is required")
	}
	if req.Password == "" || len(req.Password) > 1024 {
		fe.Add("password", "is required")
	}
	if fe.Any() {
		ValidationFailed(c, fe)
		return
	}
	u, err := s.Store.UserByEmail(c.Request.Context(), req.Email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		Internal(c, err)
		return
	}
	if u == nil {
		auth.CheckPassword("", req.Password) // the same work as a real check
		Fail(c, http.StatusUnauthorized, ErrBadCredentials)
		return
	}
	if !auth.CheckPassword(u.PasswordHash, req.Password) || u.Disabled {
		Fail(c, http.StatusUnauthorized, ErrBadCredentials)
		return
	}
	org, err := s.Store.GetOrganization(c.Request.Context(), u.OrgID)
	if err != nil {
		Internal(c, err)
		return
	}
	now := s.Now().UTC()
	token, csrf := randomToken(), randomToken()
	sess := &store.Session{
		ID: ids.NewAt(ids.Session, now), OrgID: u.OrgID, UserID: u.ID, TokenHash: auth.HashKey(token),
		CSRFToken: csrf, ExpiresAt: now.Add(s.Config.Auth.SessionTTL), CreatedAt: now,
	}
	if err := s.Store.CreateSession(c.Request.Context(), sess); err != nil {
		Internal(c, err)
		return
	}
	c.Set(ctxPrincipal, s.sessionPrincipal(sess, u))
	AuditResource(c, sess.ID)
	maxAge := int(s.Config.Auth.SessionTTL.Seconds())
	s.setCookie(c, SessionCookie, token, maxAge, true)
	s.setCookie(c, CSRFCookie, csrf, maxAge, false)
	OK(c, loginView{
		User: newUserView(u), Organization: orgView{ID: org.ID, Name: org.Name}, Environment: s.Config.Environment,
		SessionID: sess.ID, CSRFToken: csrf, ExpiresAt: Timestamp(sess.ExpiresAt),
	})
}

// logout ends the cookie's session, if any, and clears the cookies. It always answers 204.
func (s *Server) logout(c *gin.Context) {
	if token, err := c.Cookie(SessionCookie); err == nil && token != "" {
		sess, err := s.Store.SessionByTokenHash(c.Request.Context(), auth.HashKey(token))
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			Internal(c, err)
			return
		}
		if sess != nil && sess.Active(s.Now()) {
			if err := s.Store.RevokeSession(c.Request.Context(), sess.OrgID, sess.ID, s.Now()); err != nil {
				Internal(c, err)
				return
			}
			c.Set(ctxPrincipal, &auth.Principal{OrgID: sess.OrgID, Environment: s.Config.Environment, SessionID: sess.ID, UserID: sess.UserID})
			AuditResource(c, sess.ID)
		}
	}
	s.setCookie(c, SessionCookie, "", -1, true)
	s.setCookie(c, CSRFCookie, "", -1, false)
	NoContent(c)
}

// authenticateSession resolves a session cookie to its user's principal, enforcing CSRF on writes.
func (s *Server) authenticateSession(c *gin.Context, token string) {
	sess, err := s.Store.SessionByTokenHash(c.Request.Context(), auth.HashKey(token))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		Internal(c, err)
		return
	}
	now := s.Now()
	if sess == nil || !sess.Active(now) {
		Fail(c, http.StatusUnauthorized, ErrMissingBearer)
		return
	}
	u, err := s.Store.GetUser(c.Request.Context(), sess.OrgID, sess.UserID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		Internal(c, err)
		return
	}
	if u == nil || u.Disabled {
		Fail(c, http.StatusUnauthorized, ErrMissingBearer)
		return
	}
	switch c.Request.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		got := c.GetHeader(HeaderCSRF)
		if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(sess.CSRFToken)) != 1 {
			Fail(c, http.StatusForbidden, ErrCSRF)
			return
		}
	}
	c.Set(ctxPrincipal, s.sessionPrincipal(sess, u))
	c.Next()
}

func (s *Server) sessionPrincipal(sess *store.Session, u *store.User) *auth.Principal {
	return &auth.Principal{
		OrgID: sess.OrgID, Environment: s.Config.Environment, SessionID: sess.ID,
		UserID: u.ID, UserRole: u.Role, Scopes: auth.RoleScopes(u.Role),
	}
}

func (s *Server) setCookie(c *gin.Context, name, value string, maxAge int, httpOnly bool) {
	http.SetCookie(c.Writer, &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: httpOnly,
		Secure:   c.Request.TLS != nil || strings.HasPrefix(s.Config.BaseURL(), "https://"),
		SameSite: http.SameSiteStrictMode,
	})
}

// randomToken is 32 random bytes, base64url.
func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
