package api

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/auth"
	"github.com/svcplatform/svc/ids"
	"github.com/svcplatform/svc/store"
)

// RotationGrace is how long a rotated key keeps working (SPEC 5.4).
const RotationGrace = 24 * time.Hour

// maxScopes caps the scopes of one key.
const maxScopes = 50

// apiKeyView is a key as the API shows it: never its value, only a masked form.
type apiKeyView struct {
	ID                string   `json:"id"`
	Name              string   `json:"name"`
	Environment       string   `json:"environment"`
	Scopes            []string `json:"scopes"`
	MaskedKey         string   `json:"maskedKey"`
	Status            string   `json:"status"`
	ActAsUserID       *string  `json:"actAsUserId"`
	CallerServiceSlug *string  `json:"callerServiceSlug"`
	ExpiresAt         *string  `json:"expiresAt"`
	RevokedAt         *string  `json:"revokedAt"`
	// RevokesAt is the end of a rotated key's grace window.
	RevokesAt   *string `json:"revokesAt"`
	RotatedToID *string `json:"rotatedToId"`
	LastUsedAt  *string `json:"lastUsedAt"`
	CreatedAt   string  `json:"createdAt"`
}

// issuedKeyView is a new key with its value, shown this once.
type issuedKeyView struct {
	apiKeyView
	Key string `json:"key"`
	// PreviousKeyID and PreviousValidUntil are set by rotation: the old key works until then.
	PreviousKeyID      string `json:"previousKeyId,omitempty"`
	PreviousValidUntil string `json:"previousValidUntil,omitempty"`
}

func timestampPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := Timestamp(*t)
	return &s
}

func (s *Server) newAPIKeyView(k *store.APIKey) apiKeyView {
	return apiKeyView{
		ID: k.ID, Name: k.Name, Environment: k.Environment, Scopes: nonNil(k.Scopes), MaskedKey: auth.Mask(k.Environment, k.Last4),
		Status: k.Status(s.Now()), ActAsUserID: nullable(k.ActAsUserID), CallerServiceSlug: nullable(k.CallerServiceSlug),
		ExpiresAt: timestampPtr(k.ExpiresAt), RevokedAt: timestampPtr(k.RevokedAt), RevokesAt: timestampPtr(k.RevokesAt),
		RotatedToID: nullable(k.RotatedToID), LastUsedAt: timestampPtr(k.LastUsedAt), CreatedAt: Timestamp(k.CreatedAt),
	}
}

type createAPIKeyRequest struct {
	Name        string    `json:"name"`
	Scopes      *[]string `json:"scopes"`
	ActAsUserID string    `json:"actAsUserId"`
	ExpiresAt   string    `json:"expiresAt"`
}

type updateAPIKeyRequest struct {
	Name        *string          `json:"name"`
	Scopes      *[]string        `json:"scopes"`
	ActAsUserID Optional[string] `json:"actAsUserId"`
}

// checkScopes validates and normalises requested scopes (dotted aliases become name:action,
// duplicates go). A caller may not grant a scope it does not hold itself: that answers 403
// missing scope. It returns false after answering.
func (s *Server) checkScopes(c *gin.Context, fe FieldErrors, scopes []string) ([]string, bool) {
	if len(scopes) == 0 {
		fe.Add("scopes", "must list at least one scope")
		return nil, true
	}
	if len(scopes) > maxScopes {
		fe.Add("scopes", "must list at most 50 scopes")
		return nil, true
	}
	out := make([]string, 0, len(scopes))
	for _, sc := range scopes {
		if !auth.ValidScope(sc) {
			fe.Add("scopes", "unknown scope "+quote(sc)+": use read, write, <resource>:view, <resource>:write, webhooks:manage or api:manage")
			continue
		}
		if n := auth.NormalizeScope(sc); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if fe.Any() {
		return nil, true
	}
	p := PrincipalOf(c)
	for _, sc := range out {
		if !p.Can(sc) {
			Fail(c, http.StatusForbidden, "missing scope: "+sc)
			return nil, false
		}
	}
	return out, true
}

// quote shows a user-supplied value in a message, shortened.
func quote(v string) string {
	if len(v) > 60 {
		v = v[:60] + "…"
	}
	return `"` + strings.ToValidUTF8(v, "?") + `"`
}

// checkActAsUser validates actAsUserId: a user of the caller's organisation who is not disabled.
func (s *Server) checkActAsUser(c *gin.Context, fe FieldErrors, id string) bool {
	if !ids.Valid(ids.User, id) {
		fe.Add("actAsUserId", "must be a user id (usr_…)")
		return true
	}
	u, err := s.Store.GetUser(c.Request.Context(), PrincipalOf(c).OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		fe.Add("actAsUserId", "no such user in this organisation")
		return true
	}
	if err != nil {
		Internal(c, err)
		return false
	}
	if u.Disabled {
		fe.Add("actAsUserId", "user is disabled")
	}
	return true
}

// createAPIKey issues a key of the caller's organisation in this deployment's environment. Service
// principal keys (callerServiceSlug) cannot be issued here: the field is unknown to this endpoint.
func (s *Server) createAPIKey(c *gin.Context) {
	var req createAPIKeyRequest
	if !BindJSON(c, &req) {
		return
	}
	fe := FieldErrors{}
	name := strings.TrimSpace(req.Name)
	if name == "" || len(name) > 200 {
		fe.Add("name", "is required, at most 200 characters")
	}
	var scopes []string
	if req.Scopes == nil {
		fe.Add("scopes", "is required")
	}
	var expires *time.Time
	if req.ExpiresAt != "" {
		t, err := time.Parse(time.RFC3339Nano, req.ExpiresAt)
		switch {
		case err != nil:
			fe.Add("expiresAt", "must be an RFC 3339 timestamp")
		case !t.After(s.Now()):
			fe.Add("expiresAt", "must be in the future")
		default:
			t = t.UTC()
			expires = &t
		}
	}
	if req.ActAsUserID != "" && !s.checkActAsUser(c, fe, req.ActAsUserID) {
		return
	}
	if req.Scopes != nil {
		var ok bool
		if scopes, ok = s.checkScopes(c, fe, *req.Scopes); !ok {
			return
		}
	}
	if fe.Any() {
		ValidationFailed(c, fe)
		return
	}
	k, secret, err := s.Store.IssueAPIKey(c.Request.Context(), store.NewAPIKey{
		OrgID: PrincipalOf(c).OrgID, Name: name, Environment: s.Config.Environment, Scopes: scopes,
		ActAsUserID: req.ActAsUserID, ExpiresAt: expires, Now: s.Now(),
	})
	if err != nil {
		Internal(c, err)
		return
	}
	Created(c, issuedKeyView{apiKeyView: s.newAPIKeyView(k), Key: secret})
}

// listAPIKeys pages through the organisation's keys, masked; q matches the name.
func (s *Server) listAPIKeys(c *gin.Context) {
	q, ok := ParseList(c, ListSpec{MaxLimit: 100, Filters: []string{FilterQ}})
	if !ok {
		return
	}
	rows, total, err := s.Store.ListAPIKeys(c.Request.Context(), PrincipalOf(c).OrgID, q.Page, q.Filter)
	if !Loaded(c, err) {
		return
	}
	ListRows(c, rows, total, q, s.newAPIKeyView, nil)
}

// getAPIKey answers one key, masked.
func (s *Server) getAPIKey(c *gin.Context) {
	k, err := s.Store.GetAPIKey(c.Request.Context(), PrincipalOf(c).OrgID, PathID(c))
	if Loaded(c, err) {
		OK(c, s.newAPIKeyView(k))
	}
}

// loadEditableAPIKey loads the path's key for a change: 404 when it is not the organisation's,
// 422 for a service principal key, which only the platform manages.
func (s *Server) loadEditableAPIKey(c *gin.Context) (*store.APIKey, bool) {
	k, err := s.Store.GetAPIKey(c.Request.Context(), PrincipalOf(c).OrgID, PathID(c))
	if !Loaded(c, err) {
		return nil, false
	}
	if k.CallerServiceSlug != "" {
		Fail(c, http.StatusUnprocessableEntity, ErrServiceKey)
		return nil, false
	}
	return k, true
}

// updateAPIKey changes a key's name, scopes or bound user ({"actAsUserId": null} unbinds).
func (s *Server) updateAPIKey(c *gin.Context) {
	var req updateAPIKeyRequest
	if !BindJSON(c, &req) {
		return
	}
	k, ok := s.loadEditableAPIKey(c)
	if !ok {
		return
	}
	fe := FieldErrors{}
	ch := store.APIKeyChanges{Now: s.Now()}
	if req.Name != nil {
		name := strings.TrimSpace(*req.Name)
		if name == "" || len(name) > 200 {
			fe.Add("name", "must be 1 to 200 characters")
		}
		ch.Name = &name
	}
	if a := req.ActAsUserID; a.Set {
		unbound := ""
		switch {
		case a.Null || a.Value == "":
			ch.ActAsUserID = &unbound
		default:
			if !s.checkActAsUser(c, fe, a.Value) {
				return
			}
			ch.ActAsUserID = &a.Value
		}
	}
	if req.Scopes != nil {
		scopes, ok := s.checkScopes(c, fe, *req.Scopes)
		if !ok {
			return
		}
		ch.Scopes = scopes
	}
	if fe.Any() {
		ValidationFailed(c, fe)
		return
	}
	k, err := s.Store.UpdateAPIKey(c.Request.Context(), k.OrgID, k.ID, ch)
	if err != nil {
		Internal(c, err)
		return
	}
	s.sec.keys.clear()
	OK(c, s.newAPIKeyView(k))
}

// rotateAPIKey issues a successor and lets the old key work for RotationGrace more (SPEC 5.4).
// Authentication refuses the old key from previousValidUntil on; no job runs.
func (s *Server) rotateAPIKey(c *gin.Context) {
	k, ok := s.loadEditableAPIKey(c)
	if !ok {
		return
	}
	next, secret, old, err := s.Store.RotateAPIKey(c.Request.Context(), k.OrgID, k.ID, s.Now(), RotationGrace)
	if errors.Is(err, store.ErrKeyNotActive) {
		StateConflict(c, k.Status(s.Now()), store.KeyRotated)
		return
	}
	if err != nil {
		Internal(c, err)
		return
	}
	s.sec.keys.clear()
	until := *old.RevokesAt
	if old.ExpiresAt != nil && old.ExpiresAt.Before(until) {
		until = *old.ExpiresAt // an expiry before the grace window ends still applies
	}
	AuditResource(c, old.ID)
	Created(c, issuedKeyView{apiKeyView: s.newAPIKeyView(next), Key: secret, PreviousKeyID: old.ID, PreviousValidUntil: Timestamp(until)})
}

// revokeAPIKey revokes a key now and answers it; revoking a revoked key changes nothing.
func (s *Server) revokeAPIKey(c *gin.Context) {
	k, err := s.Store.RevokeAPIKey(c.Request.Context(), PrincipalOf(c).OrgID, PathID(c), s.Now())
	if !Loaded(c, err) {
		return
	}
	s.sec.keys.clear()
	OK(c, s.newAPIKeyView(k))
}

// meView is the caller's identity (GET /identity/api/auth/me).
type meView struct {
	Organization      orgView   `json:"organization"`
	Environment       string    `json:"environment"`
	APIKeyID          *string   `json:"apiKeyId"`
	SessionID         *string   `json:"sessionId"`
	Scopes            []string  `json:"scopes"`
	User              *userView `json:"user"`
	CallerServiceSlug *string   `json:"callerServiceSlug"`
}

// me answers who the caller is: organisation, environment, key or session, scopes, bound user.
func (s *Server) me(c *gin.Context) {
	p := PrincipalOf(c)
	org, err := s.Store.GetOrganization(c.Request.Context(), p.OrgID)
	if err != nil {
		Internal(c, err)
		return
	}
	v := meView{
		Organization: orgView{ID: org.ID, Name: org.Name}, Environment: p.Environment, APIKeyID: nullable(p.APIKeyID),
		SessionID: nullable(p.SessionID), Scopes: nonNil(p.Scopes), CallerServiceSlug: nullable(p.CallerServiceSlug),
	}
	if p.UserID != "" {
		u, err := s.Store.GetUser(c.Request.Context(), p.OrgID, p.UserID)
		if err != nil {
			Internal(c, err)
			return
		}
		uv := newUserView(u)
		v.User = &uv
	}
	OK(c, v)
}
