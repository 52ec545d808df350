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
	UserRole          string
	Scopes            []string
	CallerServiceSlug string
}

// Can reports whether the principal holds scope need.
func (p *Principal) Can(need string) bool { return p != nil && Grants(p.Scopes, need) }
