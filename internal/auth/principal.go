package auth

// Principal is who a request acts as: an API key, or a dashboard session's user.
type Principal struct {
	OrgID       string
	Environment string
	// APIKeyID is set for key-authenticated requests.
	APIKeyID string
	// SessionID is set for cookie-authenticated requests.
	SessionID string
	// UserID is the effective user: the key's bound user (actAsUserId) or the session's user; "" when none.
	UserID string
	// UserRole is the effective user's role, when there is a user.
	UserRole string
	// Scopes are the key's scopes, or the session user's role scopes.
	Scopes []string
	// UserScopes, when non-nil, is a ceiling: a key bound to a user may use only what both its own
	// scopes and its user's role grant, so a key never does more than its accountable human.
	UserScopes        []string
	CallerServiceSlug string
}

// Can reports whether the principal holds scope need.
func (p *Principal) Can(need string) bool {
	if p == nil || !Grants(p.Scopes, need) {
		return false
	}
	return p.UserScopes == nil || Grants(p.UserScopes, need)
}

// RateKey identifies the principal for per-key rate limits: the key id, or the session's user.
func (p *Principal) RateKey() string {
	if p.APIKeyID != "" {
		return p.APIKeyID
	}
	return p.UserID
}
