package api

import (
	"github.com/gin-gonic/gin"
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
	// AuditReads records successful reads in the audit log too (reads of personal data, such
	// as identity document images); writes are always recorded.
	AuditReads bool
	// Product is the product the route belongs to (auth.ProductOrchestration, ...); "" for the
	// platform's own routes (health, accounts).
	Product string
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

// ForProduct sets Product on each of routes: a product's Routes end with it.
func ForProduct(product string, routes []Route) []Route {
	for i := range routes {
		routes[i].Product = product
	}
	return routes
}

// platformRoutes are the platform's own endpoints that need the Server itself; the route table
// (RouteTable) adds the accounts' and every product's routes to them.
func (s *Server) platformRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/healthz", Public: true, Summary: "process is up", Handler: s.healthz},
		{Method: "GET", Path: "/readyz", Public: true, Summary: "database and Temporal reachable", Handler: s.readyz},
		{Method: "GET", Path: "/metrics", Public: true, Summary: "Prometheus metrics", Handler: s.metricsHandler},
		{Method: "GET", Path: "/openapi.json", Public: true, Summary: "this API's OpenAPI 3.0 description", Handler: s.openapi},
	}
}
