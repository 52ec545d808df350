package auth

import "slices"

// Roles of a user (docs/decisions.md, roles). Each maps to the scopes a dashboard session of that user holds, and
// to the ceiling of what a key bound to that user (actAsUserId) may do.
const (
	RoleAdmin    = "admin"
	RoleReviewer = "reviewer"
	RoleAnalyst  = "analyst"
	RoleViewer   = "viewer"
)

// roleScopes is THE table of roles and their scopes.
var roleScopes = map[string][]string{
	// admin manages everything: keys, users, webhooks, and writes every resource.
	RoleAdmin: {ScopeWrite, ScopeAPIManage, ScopeWebhooksManage},
	// reviewer reads everything and resolves human work: approvals, extraction corrections, identity reviews, cases and SAR filings (the second pair of eyes).
	RoleReviewer: {ScopeRead, "approvals:write", "extractions:write", "verification-reviews:write", "cases:write", "sar-filings:write"},
	// analyst reads everything and runs the products: workflows, executions, documents, corrections, document templates, identity verifications, cases and SAR drafts, AI automations,
	// bank statement analyses (with their corrections) and statement templates.
	RoleAnalyst: {ScopeRead, "workflows:write", "executions:write", "documents:write", "extractions:write", "templates:write", "verifications:write", "cases:write", "sar-filings:write", "automations:write",
		"analyses:write", "statement-templates:write"},
	// viewer only reads.
	RoleViewer: {ScopeRead},
}

// Roles lists every role name, sorted.
func Roles() []string {
	out := make([]string, 0, len(roleScopes))
	for r := range roleScopes {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// ValidRole reports whether role is one of Roles().
func ValidRole(role string) bool {
	_, ok := roleScopes[role]
	return ok
}

// RoleScopes returns a copy of the scopes of role, or nil for an unknown role.
func RoleScopes(role string) []string {
	return slices.Clone(roleScopes[role])
}
