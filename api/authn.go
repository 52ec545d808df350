package api

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/store"
)

// PrincipalOf is who the request acts as, or nil before authentication.
func PrincipalOf(c *gin.Context) *auth.Principal {
	if p, ok := c.Get(ctxPrincipal); ok {
		return p.(*auth.Principal)
	}
	return nil
}

// authenticate resolves the Authorization header to a principal (SPEC 5). A key anywhere in the
// query string is refused before any lookup, and unknown and malformed keys answer alike.
func (s *Server) authenticate(c *gin.Context) {
	if keyInURL(c.Request.URL) {
		Fail(c, http.StatusUnauthorized, MsgMissingBearer)
		return
	}
	header := c.GetHeader("Authorization")
	if header == "" {
		if cookie, err := c.Cookie(SessionCookie); err == nil && cookie != "" {
			s.authenticateSession(c, cookie)
			return
		}
	}
	token, ok := auth.BearerToken(header)
	if !ok {
		Fail(c, http.StatusUnauthorized, MsgMissingBearer)
		return
	}
	env, err := auth.ParseKey(token)
	if err != nil {
		Fail(c, http.StatusUnauthorized, MsgMissingBearer)
		return
	}
	entry, err := s.lookupKey(c, auth.HashKey(token))
	if errors.Is(err, store.ErrNotFound) {
		Fail(c, http.StatusUnauthorized, MsgMissingBearer)
		return
	}
	if err != nil {
		Internal(c, err)
		return
	}
	key, now := entry.key, s.Now()
	if key.RevokedAt != nil && !now.Before(*key.RevokedAt) || key.RevokesAt != nil && !now.Before(*key.RevokesAt) {
		Fail(c, http.StatusUnauthorized, MsgMissingBearer)
		return
	}
	if key.ExpiresAt != nil && !now.Before(*key.ExpiresAt) {
		Fail(c, http.StatusUnauthorized, MsgKeyExpired)
		return
	}
	if env != s.Config.Environment || key.Environment != s.Config.Environment {
		Fail(c, http.StatusForbidden, "key is "+env+"; endpoint is "+s.Config.Environment)
		return
	}
	p := &auth.Principal{
		OrgID:             key.OrgID,
		Environment:       key.Environment,
		APIKeyID:          key.ID,
		Scopes:            key.Scopes,
		CallerServiceSlug: key.CallerServiceSlug,
	}
	if key.ActAsUserID != "" {
		u := entry.user
		if u == nil || u.Disabled {
			// A key bound to a missing or disabled user is refused.
			Fail(c, http.StatusUnauthorized, MsgMissingBearer)
			return
		}
		// The bound user's role is a ceiling: the key never does more than its accountable human.
		p.UserID, p.UserRole, p.UserScopes = u.ID, u.Role, auth.RoleScopes(u.Role)
	}
	c.Set(ctxPrincipal, p)
	c.Next()
}

// requireScope answers 403 missing scope: <scope> when the principal lacks need.
func (s *Server) requireScope(need string) gin.HandlerFunc {
	return func(c *gin.Context) {
		if !PrincipalOf(c).Can(need) {
			Fail(c, http.StatusForbidden, "missing scope: "+need)
			return
		}
		c.Next()
	}
}

// RequireUser answers 422 api_key_not_bound_to_user when no user acts (four-eyes endpoints).
func RequireUser(c *gin.Context) (*auth.Principal, bool) {
	p := PrincipalOf(c)
	if p == nil || p.UserID == "" {
		Fail(c, http.StatusUnprocessableEntity, MsgNotBound)
		return nil, false
	}
	return p, true
}

// keyInURL reports whether the URL carries a key or a token: in the path, or in any query parameter.
func keyInURL(u *url.URL) bool {
	raw := u.Path + "?" + u.RawQuery
	if dec, err := url.QueryUnescape(raw); err == nil {
		raw = dec
	}
	if strings.Contains(strings.ToLower(raw), strings.ToLower(auth.KeyPrefix)) {
		return true
	}
	q := u.Query()
	for _, name := range []string{"api_key", "apikey", "access_token", "token", "bearer", "key", "authorization"} {
		for k := range q {
			if strings.EqualFold(k, name) {
				return true
			}
		}
	}
	return false
}
