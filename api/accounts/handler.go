// Package accounts is the platform's own API: dashboard sessions, API keys, users, the audit
// log and the caller's identity (SPEC 5). Its routes belong to no product.
package accounts

import (
	"time"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/store"
)

// Deps are what the accounts API needs.
type Deps struct {
	Config *config.Config
	Store  *store.Store
	// Now is the clock (key expiry and rotation, sessions).
	Now func() time.Time
	// Dev is true under `svc dev`: the session cookie is then not Secure (plain HTTP on loopback).
	Dev bool
}

// Handler serves the platform's account endpoints.
type Handler struct {
	Deps
}

// New builds the accounts API.
func New(d Deps) *Handler { return &Handler{Deps: d} }

// Routes are the platform's account rows of the route table (Product empty).
func (h *Handler) Routes() []api.Route {
	return []api.Route{
		{Method: "POST", Path: "/api/auth/login", Public: true, Bucket: api.BucketLogin, Body: api.BodyJSON, Summary: "log in to the dashboard: session cookie and CSRF token", Handler: h.login},
		{Method: "POST", Path: "/api/auth/logout", Public: true, Summary: "end the dashboard session", Handler: h.logout},
		{Method: "GET", Path: "/identity/api/auth/me", Summary: "the caller's identity", Handler: h.me},
		{Method: "POST", Path: "/api/api-keys", Scope: "api:manage", Body: api.BodyJSON, Summary: "issue an API key (its value is shown once)", Handler: h.createAPIKey},
		{Method: "GET", Path: "/api/api-keys", Scope: "api:manage", Summary: "list API keys, masked", Handler: h.listAPIKeys},
		{Method: "GET", Path: "/api/api-keys/:id", Scope: "api:manage", Summary: "get an API key, masked", Handler: h.getAPIKey},
		{Method: "PATCH", Path: "/api/api-keys/:id", Scope: "api:manage", Body: api.BodyJSON, Summary: "rename, re-scope or re-bind an API key", Handler: h.updateAPIKey},
		{Method: "POST", Path: "/api/api-keys/:id/rotate", Scope: "api:manage", Summary: "rotate an API key: new value once, old one valid 24 more hours", Handler: h.rotateAPIKey},
		{Method: "DELETE", Path: "/api/api-keys/:id", Scope: "api:manage", Summary: "revoke an API key now", Handler: h.revokeAPIKey},
		{Method: "POST", Path: "/api/users", Scope: "api:manage", Body: api.BodyJSON, Idempotent: true, Summary: "add a user to the organisation", Handler: h.createUser},
		{Method: "GET", Path: "/api/users", Scope: "users:view", Summary: "list the organisation's users", Handler: h.listUsers},
		{Method: "GET", Path: "/api/users/:id", Scope: "users:view", Summary: "get a user", Handler: h.getUser},
		{Method: "PATCH", Path: "/api/users/:id", Scope: "api:manage", Body: api.BodyJSON, Summary: "change a user's name, role, password or disabled flag", Handler: h.updateUser},
		{Method: "GET", Path: "/api/organization", Summary: "the caller's organisation and the products it may use", Handler: h.getOrganization},
		{Method: "PUT", Path: "/api/organization/capabilities", Scope: "api:manage", Body: api.BodyJSON, Summary: "set the products the organisation may use ([\"*\"] for every product, present and future); audit-logged", Handler: h.setCapabilities},
		{Method: "GET", Path: "/api/audit-logs", Scope: "api:manage", Summary: "the organisation's audit log, newest first", Handler: h.listAuditLogs},
	}
}
