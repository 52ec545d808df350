package accounts

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/svcplatform/svc/api"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ids"
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

func (h *Handler) newAPIKeyView(k *store.APIKey) apiKeyView {
	return apiKeyView{
		ID: k.ID, Name: k.Name, Environment: k.Environment, Scopes: api.NonNil(k.Scopes), MaskedKey: auth.Mask(k.Environment, k.Last4),
		Status: k.Status(h.Now()), ActAsUserID: api.Nullable(k.ActAsUserID), CallerServiceSlug: api.Nullable(k.CallerServiceSlug),
		ExpiresAt: api.TimestampPtr(k.ExpiresAt), RevokedAt: api.TimestampPtr(k.RevokedAt), RevokesAt: api.TimestampPtr(k.RevokesAt),
		RotatedToID: api.Nullable(k.RotatedToID), LastUsedAt: api.TimestampPtr(k.LastUsedAt), CreatedAt: api.Timestamp(k.CreatedAt),
	}
}

type createAPIKeyRequest struct {
	Name        string    `json:"name"`
	Scopes      *[]string `json:"scopes"`
	ActAsUserID string    `json:"actAsUserId"`
	ExpiresAt   string    `json:"expiresAt"`
}

type updateAPIKeyRequest struct {
	Name        *string              `json:"name"`
	Scopes      *[]string            `json:"scopes"`
	ActAsUserID api.Optional[string] `json:"actAsUserId"`
}

// checkScopes validates and normalises requested scopes (dotted aliases become name:action,
// duplicates go). A caller may not grant a scope it does not hold itself: that answers 403
// missing scope. It returns false after answering.
func (h *Handler) checkScopes(c *gin.Context, fe api.FieldErrors, scopes []string) ([]string, bool) {
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
			fe.Add("scopes", "unknown scope "+api.Quote(sc)+": use read, write, <resource>:view, <resource>:write, webhooks:manage or api:manage")
			continue
		}
		if n := auth.NormalizeScope(sc); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if fe.Any() {
		return nil, true
	}
	p := api.PrincipalOf(c)
	for _, sc := range out {
		if !p.Can(sc) {
			api.Fail(c, http.StatusForbidden, "missing scope: "+sc)
			return nil, false
		}
	}
	return out, true
}

// checkActAsUser validates actAsUserId: a user of the caller's organisation who is not disabled.
func (h *Handler) checkActAsUser(c *gin.Context, fe api.FieldErrors, id string) bool {
	if !ids.Valid(ids.User, id) {
		fe.Add("actAsUserId", "must be a user id (usr_…)")
		return true
	}
	u, err := h.Store.Users.Get(c.Request.Context(), api.PrincipalOf(c).OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		fe.Add("actAsUserId", "no such user in this organisation")
		return true
	}
	if err != nil {
		api.Internal(c, err)
		return false
	}
	if u.Disabled {
		fe.Add("actAsUserId", "user is disabled")
	}
	return true
}

// createAPIKey issues a key of the caller's organisation in this deployment's environment. Service
// principal keys (callerServiceSlug) cannot be issued here: the field is unknown to this endpoint.
func (h *Handler) createAPIKey(c *gin.Context) {
	var req createAPIKeyRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
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
		case !t.After(h.Now()):
			fe.Add("expiresAt", "must be in the future")
		default:
			t = t.UTC()
			expires = &t
		}
	}
	if req.ActAsUserID != "" && !h.checkActAsUser(c, fe, req.ActAsUserID) {
		return
	}
	if req.Scopes != nil {
		var ok bool
		if scopes, ok = h.checkScopes(c, fe, *req.Scopes); !ok {
			return
		}
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	k, secret, err := h.Store.Keys.Issue(c.Request.Context(), store.NewAPIKey{
		OrgID: api.PrincipalOf(c).OrgID, Name: name, Environment: h.Config.Environment, Scopes: scopes,
		ActAsUserID: req.ActAsUserID, ExpiresAt: expires, Now: h.Now(),
	})
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.Created(c, issuedKeyView{apiKeyView: h.newAPIKeyView(k), Key: secret})
}

// listAPIKeys pages through the organisation's keys, masked; q matches the name.
func (h *Handler) listAPIKeys(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Filters: []string{api.FilterQ}})
	if !ok {
		return
	}
	rows, total, err := h.Store.Keys.List(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Page, q.Filter)
	if !api.Loaded(c, err) {
		return
	}
	api.ListRows(c, rows, total, q, h.newAPIKeyView, nil)
}

// getAPIKey answers one key, masked.
func (h *Handler) getAPIKey(c *gin.Context) {
	k, err := h.Store.Keys.Get(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if api.Loaded(c, err) {
		api.OK(c, h.newAPIKeyView(k))
	}
}

// loadEditableAPIKey loads the path's key for a change: 404 when it is not the organisation's,
// 422 for a service principal key, which only the platform manages.
func (h *Handler) loadEditableAPIKey(c *gin.Context) (*store.APIKey, bool) {
	k, err := h.Store.Keys.Get(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return nil, false
	}
	if k.CallerServiceSlug != "" {
		api.Fail(c, http.StatusUnprocessableEntity, api.MsgServiceKey)
		return nil, false
	}
	return k, true
}

// updateAPIKey changes a key's name, scopes or bound user ({"actAsUserId": null} unbinds).
func (h *Handler) updateAPIKey(c *gin.Context) {
	var req updateAPIKeyRequest
	if !api.BindJSON(c, &req) {
		return
	}
	k, ok := h.loadEditableAPIKey(c)
	if !ok {
		return
	}
	fe := api.FieldErrors{}
	ch := store.APIKeyChanges{Now: h.Now()}
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
			if !h.checkActAsUser(c, fe, a.Value) {
				return
			}
			ch.ActAsUserID = &a.Value
		}
	}
	if req.Scopes != nil {
		scopes, ok := h.checkScopes(c, fe, *req.Scopes)
		if !ok {
			return
		}
		ch.Scopes = scopes
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	k, err := h.Store.Keys.Update(c.Request.Context(), k.OrgID, k.ID, ch)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.ForgetKeys(c)
	api.OK(c, h.newAPIKeyView(k))
}

// rotateAPIKey issues a successor and lets the old key work for RotationGrace more (SPEC 5.4).
// Authentication refuses the old key from previousValidUntil on; no job runs.
func (h *Handler) rotateAPIKey(c *gin.Context) {
	k, ok := h.loadEditableAPIKey(c)
	if !ok {
		return
	}
	next, secret, old, err := h.Store.Keys.Rotate(c.Request.Context(), k.OrgID, k.ID, h.Now(), RotationGrace)
	if errors.Is(err, store.ErrKeyNotActive) {
		api.StateConflict(c, k.Status(h.Now()), store.KeyRotated)
		return
	}
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.ForgetKeys(c)
	until := *old.RevokesAt
	if old.ExpiresAt != nil && old.ExpiresAt.Before(until) {
		until = *old.ExpiresAt // an expiry before the grace window ends still applies
	}
	api.AuditResource(c, old.ID)
	api.Created(c, issuedKeyView{apiKeyView: h.newAPIKeyView(next), Key: secret, PreviousKeyID: old.ID, PreviousValidUntil: api.Timestamp(until)})
}

// revokeAPIKey revokes a key now and answers it; revoking a revoked key changes nothing.
func (h *Handler) revokeAPIKey(c *gin.Context) {
	k, err := h.Store.Keys.Revoke(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c), h.Now())
	if !api.Loaded(c, err) {
		return
	}
	api.ForgetKeys(c)
	api.OK(c, h.newAPIKeyView(k))
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
func (h *Handler) me(c *gin.Context) {
	p := api.PrincipalOf(c)
	org, err := h.Store.Orgs.Get(c.Request.Context(), p.OrgID)
	if err != nil {
		api.Internal(c, err)
		return
	}
	v := meView{
		Organization: newOrgView(org), Environment: p.Environment, APIKeyID: api.Nullable(p.APIKeyID),
		SessionID: api.Nullable(p.SessionID), Scopes: api.NonNil(p.Scopes), CallerServiceSlug: api.Nullable(p.CallerServiceSlug),
	}
	if p.UserID != "" {
		u, err := h.Store.Users.Get(c.Request.Context(), p.OrgID, p.UserID)
		if err != nil {
			api.Internal(c, err)
			return
		}
		uv := newUserView(u)
		v.User = &uv
	}
	api.OK(c, v)
}
