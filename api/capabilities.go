package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/auth"
)

// requireCapability answers 403 `org capability disabled` (SPEC 7.3) when the caller's
// organisation may not use product. It runs after authentication and before the scope check, so
// a key's scopes never reveal a product its organisation lacks.
func (s *Server) requireCapability(product string) gin.HandlerFunc {
	return func(c *gin.Context) {
		caps, err := s.capabilities(c, PrincipalOf(c).OrgID)
		if err != nil {
			Internal(c, err)
			return
		}
		if !caps.Has(product) {
			Fail(c, http.StatusForbidden, MsgCapability)
			return
		}
		c.Next()
	}
}

// capabilities are the organisation's products, through the per-process cache.
func (s *Server) capabilities(c *gin.Context, orgID string) (auth.Capabilities, error) {
	now := s.Now()
	if caps, ok := s.sec.orgs.get(orgID, now); ok {
		return caps, nil
	}
	org, err := s.Store.Orgs.Get(c.Request.Context(), orgID)
	if err != nil {
		return auth.Capabilities{}, err
	}
	caps := org.Caps()
	s.sec.orgs.put(orgID, caps, now)
	return caps, nil
}

// forgetCached clears the key and capability caches (ForgetKeys).
func (s *Server) forgetCached() {
	s.sec.keys.clear()
	s.sec.orgs.clear()
}
