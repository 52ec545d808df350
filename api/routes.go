package api

import (
	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/orchestration"
)

// BodyKind is what a route accepts as its request body.
type BodyKind int

// Body kinds: none, JSON (application/json) or a multipart upload.
const (
	BodyNone BodyKind = iota
	BodyJSON
	BodyMultipart
)

// Rate-limit buckets (ARCHITECTURE 3).
const (
	BucketRead          = "read"
	BucketWrite         = "write"
	BucketLogin         = "login"
	BucketEvaluate      = "evaluate"
	BucketScreening     = "screening"
	BucketUpload        = "upload"
	BucketDeviceSession = "device_session"
)

// Route is one row of the route table: everything the middleware needs to know about an endpoint.
type Route struct {
	Method string
	// Path uses gin syntax (/api/webhooks/:id).
	Path string
	// Scope is the scope the caller needs; "" with Public for unauthenticated endpoints.
	Scope string
	// Public routes need no key (health, metrics, login).
	Public bool
	// Bucket is the rate-limit bucket; "" derives read (GET) or write (POST, PATCH, DELETE).
	Bucket string
	// Body is what the route accepts.
	Body BodyKind
	// MaxBody caps the body in bytes; 0 means http.max_body_bytes.
	MaxBody int64
	// Idempotent POSTs honour a body externalId (SPEC 4.7).
	Idempotent bool
	// Summary describes the endpoint (OpenAPI summary).
	Summary string
	Handler gin.HandlerFunc
}

// bucket is the route's rate-limit bucket.
func (r Route) bucket() string {
	if r.Bucket != "" {
		return r.Bucket
	}
	if r.Method == "GET" || r.Method == "HEAD" {
		return BucketRead
	}
	return BucketWrite
}

// Routes is THE route table: every endpoint svc serves, with its scope and body kind.
func (s *Server) Routes() []Route {
	return []Route{
		{Method: "GET", Path: "/healthz", Public: true, Summary: "process is up", Handler: s.healthz},
		{Method: "GET", Path: "/readyz", Public: true, Summary: "database and Temporal reachable", Handler: s.readyz},
		{Method: "GET", Path: "/metrics", Public: true, Summary: "Prometheus metrics", Handler: s.metricsHandler},
		{Method: "GET", Path: "/openapi.json", Public: true, Summary: "this API's OpenAPI 3.0 description", Handler: s.openapi},

		{Method: "POST", Path: "/api/pings", Scope: "pings:write", Body: BodyJSON, Idempotent: true, Summary: "start the trivial ping workflow", Handler: s.createPing},
		{Method: "GET", Path: "/api/pings/:id", Scope: "pings:view", Summary: "get a ping", Handler: s.getPing},

		// Identity: dashboard sessions, keys, users, audit log (issue 3).
		{Method: "POST", Path: "/api/auth/login", Public: true, Bucket: BucketLogin, Body: BodyJSON, Summary: "log in to the dashboard: session cookie and CSRF token", Handler: s.login},
		{Method: "POST", Path: "/api/auth/logout", Public: true, Summary: "end the dashboard session", Handler: s.logout},
		{Method: "GET", Path: "/identity/api/auth/me", Summary: "the caller's identity", Handler: s.me},
		{Method: "POST", Path: "/api/api-keys", Scope: "api:manage", Body: BodyJSON, Summary: "issue an API key (its value is shown once)", Handler: s.createAPIKey},
		{Method: "GET", Path: "/api/api-keys", Scope: "api:manage", Summary: "list API keys, masked", Handler: s.listAPIKeys},
		{Method: "GET", Path: "/api/api-keys/:id", Scope: "api:manage", Summary: "get an API key, masked", Handler: s.getAPIKey},
		{Method: "PATCH", Path: "/api/api-keys/:id", Scope: "api:manage", Body: BodyJSON, Summary: "rename, re-scope or re-bind an API key", Handler: s.updateAPIKey},
		{Method: "POST", Path: "/api/api-keys/:id/rotate", Scope: "api:manage", Summary: "rotate an API key: new value once, old one valid 24 more hours", Handler: s.rotateAPIKey},
		{Method: "DELETE", Path: "/api/api-keys/:id", Scope: "api:manage", Summary: "revoke an API key now", Handler: s.revokeAPIKey},
		{Method: "POST", Path: "/api/users", Scope: "api:manage", Body: BodyJSON, Idempotent: true, Summary: "add a user to the organisation", Handler: s.createUser},
		{Method: "GET", Path: "/api/users", Scope: "users:view", Summary: "list the organisation's users", Handler: s.listUsers},
		{Method: "GET", Path: "/api/users/:id", Scope: "users:view", Summary: "get a user", Handler: s.getUser},
		{Method: "PATCH", Path: "/api/users/:id", Scope: "api:manage", Body: BodyJSON, Summary: "change a user's name, role, password or disabled flag", Handler: s.updateUser},
		{Method: "GET", Path: "/api/audit-logs", Scope: "api:manage", Summary: "the organisation's audit log, newest first", Handler: s.listAuditLogs},

		// Webhooks: subscriptions, secrets, test sends and the delivery log (issue 4).
		{Method: "POST", Path: "/api/webhooks", Scope: "webhooks:manage", Body: BodyJSON, Summary: "subscribe a URL to events (its signing secret is shown once)", Handler: s.createWebhook},
		{Method: "GET", Path: "/api/webhooks", Scope: "webhooks:view", Summary: "list webhook subscriptions", Handler: s.listWebhooks},
		{Method: "GET", Path: "/api/webhooks/:id", Scope: "webhooks:view", Summary: "get a webhook subscription (never its secret)", Handler: s.getWebhook},
		{Method: "PATCH", Path: "/api/webhooks/:id", Scope: "webhooks:manage", Body: BodyJSON, Summary: "change a subscription's url, events or active flag", Handler: s.updateWebhook},
		{Method: "DELETE", Path: "/api/webhooks/:id", Scope: "webhooks:manage", Summary: "delete a webhook subscription and its delivery log", Handler: s.deleteWebhook},
		{Method: "POST", Path: "/api/webhooks/:id/rotate-secret", Scope: "webhooks:manage", Summary: "give a subscription a new signing secret (shown once)", Handler: s.rotateWebhookSecret},
		{Method: "POST", Path: "/api/webhooks/:id/test", Scope: "webhooks:manage", Summary: "send webhook.test to the subscription", Handler: s.testWebhook},
		{Method: "GET", Path: "/api/webhooks/:id/deliveries", Scope: "webhooks:view", Summary: "the subscription's delivery log (last 200), newest first", Handler: s.listDeliveries},
		{Method: "GET", Path: "/api/webhooks/:id/deliveries/:deliveryId", Scope: "webhooks:view", Summary: "one delivery with every attempt", Handler: s.getDelivery},
		{Method: "POST", Path: "/api/webhooks/:id/deliveries/:deliveryId/redeliver", Scope: "webhooks:manage", Summary: "deliver the same event again through the whole ladder", Handler: s.redeliver},

		// Orchestration: workflow definitions, executions and human approvals (issue 5).
		{Method: "POST", Path: "/api/workflows", Scope: "workflows:write", Body: BodyJSON, Idempotent: true, Summary: "create a workflow with its first definition version", Handler: s.createWorkflow},
		{Method: "GET", Path: "/api/workflows", Scope: "workflows:view", Summary: "list workflows", Handler: s.listWorkflows},
		{Method: "GET", Path: "/api/workflows/:id", Scope: "workflows:view", Summary: "get a workflow (by id or slug) with its latest definition", Handler: s.getWorkflow},
		{Method: "POST", Path: "/api/workflows/:id/versions", Scope: "workflows:write", Body: BodyJSON, Idempotent: true, Summary: "add an immutable definition version", Handler: s.addWorkflowVersion},
		{Method: "GET", Path: "/api/workflows/:id/versions/:version", Scope: "workflows:view", Summary: "get one definition version", Handler: s.getWorkflowVersion},
		{Method: "POST", Path: "/api/workflows/:id/executions", Scope: "executions:write", Body: BodyJSON, MaxBody: MaxInputsBytes + 4<<10, Idempotent: true, Summary: "start an execution of a workflow version", Handler: s.startExecution},
		{Method: "GET", Path: "/api/executions", Scope: "executions:view", Summary: "list executions, newest first", Handler: s.listExecutions},
		{Method: "GET", Path: "/api/executions/:id", Scope: "executions:view", Summary: "get an execution with its steps, approvals and Temporal UI link", Handler: s.getExecution},
		{Method: "POST", Path: "/api/executions/:id/cancel", Scope: "executions:write", Body: BodyJSON, Summary: "cancel a pending or running execution", Handler: s.cancelExecution},
		{Method: "GET", Path: "/api/approvals", Scope: "approvals:view", Summary: "list human approvals", Handler: s.listApprovals},
		{Method: "GET", Path: "/api/approvals/:id", Scope: "approvals:view", Summary: "get a human approval (by apr_ or stp_ id)", Handler: s.getApproval},
		{Method: "POST", Path: "/api/approvals/:id/approve", Scope: "approvals:write", Body: BodyJSON, Summary: "approve a pending approval (key bound to a user)", Handler: s.resolveApproval(orchestration.DecisionApprove)},
		{Method: "POST", Path: "/api/approvals/:id/reject", Scope: "approvals:write", Body: BodyJSON, Summary: "reject a pending approval (key bound to a user)", Handler: s.resolveApproval(orchestration.DecisionReject)},

		// Documents: upload, the pipeline's results, passwords, corrections and templates (issue 6).
		{Method: "POST", Path: "/api/documents/upload", Scope: "documents:write", Bucket: BucketUpload, Body: BodyMultipart, MaxBody: s.Config.Documents.MaxUploadBytes + uploadOverhead, Idempotent: true, Summary: "upload a document (PDF, PNG, JPEG or TIFF) for extraction", Handler: s.uploadDocument},
		{Method: "GET", Path: "/api/documents", Scope: "documents:view", Summary: "list documents, newest first", Handler: s.listDocuments},
		{Method: "GET", Path: "/api/documents/:id", Scope: "documents:view", Summary: "get a document with its latest extraction", Handler: s.getDocument},
		{Method: "GET", Path: "/api/documents/:id/extractions", Scope: "documents:view", Summary: "list a document's extractions, newest first", Handler: s.listExtractions},
		{Method: "POST", Path: "/api/documents/:id/password", Scope: "documents:write", Body: BodyJSON, Summary: "give the password of an encrypted PDF waiting in password_required", Handler: s.submitPassword},
		{Method: "POST", Path: "/api/documents/:id/corrections", Scope: "extractions:write", Body: BodyJSON, Idempotent: true, Summary: "correct fields of the latest extraction (key bound to a user)", Handler: s.correctDocument},
		{Method: "POST", Path: "/api/templates", Scope: "templates:write", Body: BodyJSON, Idempotent: true, Summary: "define a custom document type", Handler: s.createTemplate},
		{Method: "GET", Path: "/api/templates", Scope: "templates:view", Summary: "list custom document types", Handler: s.listTemplates},
		{Method: "GET", Path: "/api/templates/:id", Scope: "templates:view", Summary: "get a custom document type", Handler: s.getTemplate},
	}
}
