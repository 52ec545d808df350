package accounts

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
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

// login checks email and password and starts a session.
func (h *Handler) login(c *gin.Context) {
	var req loginRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	if strings.TrimSpace(req.Email) == "" || len(req.Email) > 320 {
		fe.Add("email", "is required")
	}
	if req.Password == "" || len(req.Password) > 1024 {
		fe.Add("password", "is required")
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	u, err := h.Store.Users.ByEmail(c.Request.Context(), req.Email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		api.Internal(c, err)
		return
	}
	if u == nil {
		auth.CheckPassword("", req.Password) // the same work as a real check
		api.Fail(c, http.StatusUnauthorized, api.MsgBadCredentials)
		return
	}
	if !auth.CheckPassword(u.PasswordHash, req.Password) || u.Disabled {
		api.Fail(c, http.StatusUnauthorized, api.MsgBadCredentials)
		return
	}
	org, err := h.Store.Orgs.Get(c.Request.Context(), u.OrgID)
	if err != nil {
		api.Internal(c, err)
		return
	}
	now := h.Now().UTC()
	token, csrf := randomToken(), randomToken()
	sess := &store.Session{
		ID: ids.NewAt(ids.Session, now), OrgID: u.OrgID, UserID: u.ID, TokenHash: auth.HashKey(token),
		CSRFToken: csrf, ExpiresAt: now.Add(h.Config.Auth.SessionTTL), CreatedAt: now,
	}
	if err := h.Store.Sessions.Create(c.Request.Context(), sess); err != nil {
		api.Internal(c, err)
		return
	}
	api.SetPrincipal(c, api.SessionPrincipal(h.Config.Environment, sess, u))
	api.AuditResource(c, sess.ID)
	maxAge := int(h.Config.Auth.SessionTTL.Seconds())
	h.setCookie(c, api.SessionCookie, token, maxAge, true)
	h.setCookie(c, api.CSRFCookie, csrf, maxAge, false)
	api.OK(c, loginView{
		User: newUserView(u), Organization: newOrgView(org), Environment: h.Config.Environment,
		SessionID: sess.ID, CSRFToken: csrf, ExpiresAt: api.Timestamp(sess.ExpiresAt),
	})
}

// logout ends the cookie's session, if any, and clears the cookies. It always answers 204.
func (h *Handler) logout(c *gin.Context) {
	if token, err := c.Cookie(api.SessionCookie); err == nil && token != "" {
		sess, err := h.Store.Sessions.ByTokenHash(c.Request.Context(), auth.HashKey(token))
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			api.Internal(c, err)
			return
		}
		if sess != nil && sess.Active(h.Now()) {
			if err := h.Store.Sessions.Revoke(c.Request.Context(), sess.OrgID, sess.ID, h.Now()); err != nil {
				api.Internal(c, err)
				return
			}
			api.SetPrincipal(c, &auth.Principal{OrgID: sess.OrgID, Environment: h.Config.Environment, SessionID: sess.ID, UserID: sess.UserID})
			api.AuditResource(c, sess.ID)
		}
	}
	h.setCookie(c, api.SessionCookie, "", -1, true)
	h.setCookie(c, api.CSRFCookie, "", -1, false)
	api.NoContent(c)
}

func (h *Handler) setCookie(c *gin.Context, name, value string, maxAge int, httpOnly bool) {
	http.SetCookie(c.Writer, &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: httpOnly,
		// Secure everywhere but svc dev; Lax so that a link into the dashboard (an e-mail, the
		// Temporal UI) arrives signed in, while writes still need the CSRF token.
		Secure:   !h.Dev || c.Request.TLS != nil || strings.HasPrefix(h.Config.BaseURL(), "https://"),
		SameSite: http.SameSiteLaxMode,
	})
}

// randomToken is 32 random bytes, base64url.
func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
