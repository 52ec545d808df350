package auth

import (
	"slices"
	"strings"
)

// Well-known scopes (SPEC 5.3).
const (
	ScopeRead           = "read"
	ScopeWrite          = "write"
	ScopeWebhooksManage = "webhooks:manage"
	ScopeAPIManage      = "api:manage"
)

// NormalizeScope turns the dotted alias (executions.write) into the canonical form (executions:write).
func NormalizeScope(s string) string {
	if !strings.Contains(s, ":") {
		if i := strings.LastIndexByte(s, '.'); i > 0 {
			return s[:i] + ":" + s[i+1:]
		}
	}
	return s
}

// ValidScope reports whether s is a scope name svc knows the shape of.
func ValidScope(s string) bool {
	s = NormalizeScope(s)
	if s == ScopeRead || s == ScopeWrite {
		return true
	}
	res, action, ok := strings.Cut(s, ":")
	if !ok || res == "" {
		return false
	}
	for _, r := range res {
		if !(r >= 'a' && r <= 'z' || r == '-' || r == '_') {
			return false
		}
	}
	switch action {
	case "view", "write", "manage":
		return true
	}
	return false
}

// Grants reports whether a key holding scopes may use an endpoint that needs scope need.
// "read" is satisfied by read and write; "resource:view" is satisfied by read, write, resource:view, resource:write and resource:manage;
// "resource:write" by write, resource:write and resource:manage; "resource:manage" (webhooks:manage,
// api:manage) by resource:manage, and webhooks:manage also by webhooks:write.
func Grants(scopes []string, need string) bool {
	if need == "" {
		return true
	}
	need = NormalizeScope(need)
	res, action, _ := strings.Cut(need, ":")
	has := func(s string) bool {
		return slices.ContainsFunc(scopes, func(x string) bool { return NormalizeScope(x) == s })
	}
	if has(need) {
		return true
	}
	if need == ScopeRead {
		return has(ScopeWrite)
	}
	switch action {
	case "view":
		return has(ScopeRead) || has(ScopeWrite) || has(res+":write") || has(res+":manage")
	case "write":
		return has(ScopeWrite) || has(res+":manage")
	case "manage":
		return res == "webhooks" && has("webhooks:write")
	}
	return false
}
