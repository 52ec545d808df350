// Package apitest runs the real API on loopback against a real store for tests, and checks every
// response it receives against api/openapi.yaml (kin-openapi), so the description cannot drift
// from what the server answers.
//
//	h := apitest.New(t, apitest.Options{})
//	res := h.Do("POST", "/api/users", h.AdminKey, map[string]any{"email": "a@example.com", "role": "viewer"})
//	if res.Status != 201 { t.Fatalf("%d %s", res.Status, res.Body) }
//	id := res.Data()["id"].(string)
//
// Each harness has its own database (SQLite in a temporary directory unless Options says
// otherwise), a controllable clock (h.Clock), an organisation with an admin user and an admin key
// bound to that user (h.Org, h.Admin, h.AdminKey). Keys with chosen scopes, other organisations
// and other environments come from h.Key, h.NewTenant and h.KeyWith.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/products"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ratelimit"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// Options configure a harness; the zero value is a fresh SQLite database and default config.
type Options struct {
	// Store is the database to use (already migrated); nil opens a fresh one.
	Store *store.Store
	// Backend, when Store is nil, picks the database (from storetest.Backends); nil means SQLite.
	Backend *storetest.Backend
	// Config adjusts the test configuration (environment sandbox, default limits) before start.
	Config func(*config.Config)
	// Temporal is the Temporal client for routes that need one; nil for the others.
	Temporal client.Client
	// RateLimits overrides the counter store (default: config ratelimit.store, i.e. database).
	RateLimits ratelimit.Store
	// Clock shares a clock between harnesses (two instances of one deployment); nil makes one.
	Clock *Clock
	// Logger receives the API's logs; nil discards them.
	Logger *slog.Logger
}

// Harness is a running API and a client that validates every response.
type Harness struct {
	T      testing.TB
	URL    string
	Server *api.Server
	Store  *store.Store
	Config *config.Config
	Clock  *Clock
	// Org is the harness's organisation; Admin its admin user; AdminKey a key bound to Admin with
	// the admin role's scopes (write, api:manage, webhooks:manage).
	Org      store.Organization
	Admin    *store.User
	AdminKey string

	client    *http.Client
	validator *Validator
}

// Clock is a controllable clock; the zero value is not usable, use NewClock or NewRunningClock.
type Clock struct {
	mu sync.Mutex
	t  time.Time
	// wall is when t was read, for a clock that runs (it says t plus the time since); zero for
	// one that stands still.
	wall time.Time
}

// NewClock starts a clock at t that stands still until moved.
func NewClock(t time.Time) *Clock { return &Clock{t: t.UTC()} }

// NewRunningClock starts a clock at the wall clock's time that runs with it: for benchmarks,
// whose load must meet time as a deployment does (velocity counters in new seconds).
func NewRunningClock() *Clock {
	now := time.Now()
	return &Clock{t: now.UTC(), wall: now}
}

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wall.IsZero() {
		return c.t
	}
	return c.t.Add(time.Since(c.wall))
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Set moves the clock to t; a running clock runs on from there.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t.UTC()
	if !c.wall.IsZero() {
		c.wall = time.Now()
	}
}

// TestConfig is the configuration harnesses start from.
func TestConfig(t testing.TB) *config.Config {
	t.Helper()
	cfg, err := config.Load(config.Options{Environ: []string{"SVC_DATA_DIR=" + t.TempDir()}})
	if err != nil {
		t.Fatalf("apitest: config: %v", err)
	}
	return cfg
}

// New starts the API on a loopback port and bootstraps an organisation with an admin.
func New(t testing.TB, o Options) *Harness {
	t.Helper()
	cfg := TestConfig(t)
	if o.Config != nil {
		o.Config(cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("apitest: config: %v", err)
	}
	st := o.Store
	if st == nil {
		b := storetest.Backend{Name: "sqlite", URL: "sqlite:" + t.TempDir() + "/svc.db"}
		if o.Backend != nil {
			b = *o.Backend
		}
		st = storetest.Open(t, b)
	}
	clk := o.Clock
	if clk == nil {
		clk = NewClock(time.Now())
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	deps := api.Deps{Config: cfg, Store: st, Temporal: o.Temporal, Logger: logger, Now: clk.Now, RateLimits: o.RateLimits}
	srv := api.New(deps, products.All(deps)...)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)

	v, err := NewValidator(ts.URL)
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	h := &Harness{T: t, URL: ts.URL, Server: srv, Store: st, Config: cfg, Clock: clk,
		client: ts.Client(), validator: v}
	ten := h.NewTenant("Harness Org")
	h.Org, h.Admin, h.AdminKey = ten.Org, ten.User, ten.Key
	return h
}

// Tenant is an organisation with an admin user and a key bound to that user.
type Tenant struct {
	Org  store.Organization
	User *store.User
	// Key is the admin key's value; KeyID its id.
	Key   string
	KeyID string
}

var tenantSeq struct {
	sync.Mutex
	n int
}

// NewTenant creates another organisation (for cross-organisation tests) with its admin and
// every product.
func (h *Harness) NewTenant(name string) Tenant {
	h.T.Helper()
	return h.NewTenantWith(name, nil)
}

// NewTenantWith is NewTenant for an organisation with only the given products (nil: every one).
func (h *Harness) NewTenantWith(name string, capabilities []string) Tenant {
	h.T.Helper()
	tenantSeq.Lock()
	tenantSeq.n++
	n := tenantSeq.n
	tenantSeq.Unlock()
	res, err := h.Store.Orgs.Bootstrap(context.Background(), store.BootstrapInput{
		OrgName: name, Email: fmt.Sprintf("admin%d.%d@example.com", n, time.Now().UnixNano()), UserName: "Admin",
		Role: auth.RoleAdmin, Environment: h.Config.Environment, Now: h.Clock.Now(), Capabilities: capabilities,
	})
	if err != nil {
		h.T.Fatalf("apitest: bootstrap: %v", err)
	}
	return Tenant{Org: res.Org, User: res.User, Key: res.Secret, KeyID: res.Key.ID}
}

// KeySpec describes a key made directly in the store (bypassing the API's own checks).
type KeySpec struct {
	OrgID       string // default: the harness organisation
	Environment string // default: the deployment's
	Scopes      []string
	ActAsUserID string
	ServiceSlug string
	ExpiresAt   *time.Time
}

// KeyWith makes a key as spec says and returns its value and id.
func (h *Harness) KeyWith(spec KeySpec) (value, id string) {
	h.T.Helper()
	if spec.OrgID == "" {
		spec.OrgID = h.Org.ID
	}
	if spec.Environment == "" {
		spec.Environment = h.Config.Environment
	}
	k, secret, err := h.Store.Keys.Issue(context.Background(), store.NewAPIKey{
		OrgID: spec.OrgID, Name: "test", Environment: spec.Environment, Scopes: spec.Scopes,
		ActAsUserID: spec.ActAsUserID, CallerServiceSlug: spec.ServiceSlug, ExpiresAt: spec.ExpiresAt, Now: h.Clock.Now(),
	})
	if err != nil {
		h.T.Fatalf("apitest: key: %v", err)
	}
	return secret, k.ID
}

// Key makes an unbound key of the harness organisation holding scopes.
func (h *Harness) Key(scopes ...string) string {
	h.T.Helper()
	v, _ := h.KeyWith(KeySpec{Scopes: scopes})
	return v
}

// Request is a request for Send.
type Request struct {
	Method string
	Path   string
	// Key, if set, is sent as Authorization: Bearer <Key>.
	Key string
	// Body is JSON-encoded unless it is []byte or string (sent as is).
	Body    any
	Header  http.Header
	Cookies []*http.Cookie
}

// Response is what the API answered. Its Error method reads the envelope's error string; it is
// not an error value.
//
//nolint:errname // a response, not an error: Error() is the answered "error" field.
type Response struct {
	Status  int
	Header  http.Header
	Body    []byte
	Cookies []*http.Cookie
	// JSON is the decoded body when it is a JSON object, else nil.
	JSON map[string]any
}

// Data is JSON["data"] as an object (nil if absent).
func (r *Response) Data() map[string]any {
	d, _ := r.JSON["data"].(map[string]any)
	return d
}

// Error is JSON["error"].
func (r *Response) Error() string {
	s, _ := r.JSON["error"].(string)
	return s
}

// Do sends method path with key (may be "") and body (nil for none).
func (h *Harness) Do(method, path, key string, body any) *Response {
	h.T.Helper()
	return h.Send(Request{Method: method, Path: path, Key: key, Body: body})
}

// Send sends r and checks the response against the OpenAPI description.
func (h *Harness) Send(r Request) *Response {
	h.T.Helper()
	var body io.Reader
	var raw []byte
	switch b := r.Body.(type) {
	case nil:
	case []byte:
		raw = b
	case string:
		raw = []byte(b)
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			h.T.Fatalf("apitest: encode body: %v", err)
		}
	}
	if r.Body != nil {
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(r.Method, h.URL+r.Path, body)
	if err != nil {
		h.T.Fatalf("apitest: %v", err)
	}
	if r.Body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	if r.Key != "" {
		req.Header.Set("Authorization", "Bearer "+r.Key)
	}
	for _, c := range r.Cookies {
		req.AddCookie(c)
	}
	res, err := h.client.Do(req)
	if err != nil {
		h.T.Fatalf("apitest: %s %s: %v", r.Method, r.Path, err)
	}
	defer res.Body.Close()
	out := &Response{Status: res.StatusCode, Header: res.Header, Cookies: res.Cookies()}
	if out.Body, err = io.ReadAll(res.Body); err != nil {
		h.T.Fatalf("apitest: read body: %v", err)
	}
	_ = json.Unmarshal(out.Body, &out.JSON)
	if err := h.validate(req, out); err != nil {
		h.T.Errorf("apitest: %s %s → %d does not match openapi.yaml: %v\nbody: %s", r.Method, r.Path, out.Status, err, truncate(out.Body))
	}
	return out
}

// validate checks a response against the OpenAPI operation of its request, and the headers every
// response carries.
func (h *Harness) validate(req *http.Request, res *Response) error {
	return h.validator.Check(req, res.Status, res.Header, res.Body)
}

// Validator checks API responses against openapi.yaml. The harness uses it for every response;
// the end-to-end tests use it for the responses of the real stack.
type Validator struct {
	router routers.Router
	doc    *openapi3.T
}

// NewValidator builds a validator for an API served at baseURL.
func NewValidator(baseURL string) (*Validator, error) {
	doc, err := api.OpenAPIDoc()
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	doc.Servers = openapi3.Servers{{URL: baseURL}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi router: %w", err)
	}
	return &Validator{router: router, doc: doc}, nil
}

// Check validates one response (status, headers, raw body) to req.
func (v *Validator) Check(req *http.Request, status int, header http.Header, body []byte) error {
	if header.Get(api.HeaderRequestID) == "" {
		return fmt.Errorf("no %s header", api.HeaderRequestID)
	}
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		// No documented operation (404 for an unknown path, 405): the body must be a failure envelope.
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			return fmt.Errorf("undocumented operation answered %d", status)
		}
		var parsed any
		if err := json.Unmarshal(body, &parsed); err != nil {
			return fmt.Errorf("failure body is not JSON: %w", err)
		}
		return v.doc.Components.Schemas["Failure"].Value.VisitJSON(parsed)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(context.Background(), in)
}

func truncate(b []byte) string {
	s := string(b)
	if len(s) > 2000 {
		s = s[:2000] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// With returns a copy of the harness that reports to t (for subtests and fuzz targets).
func (h *Harness) With(t testing.TB) *Harness {
	c := *h
	c.T = t
	return &c
}

// NoRateLimits raises every bucket of the harness organisation to a limit tests never reach.
func (h *Harness) NoRateLimits(orgID string) {
	h.T.Helper()
	for bucket := range api.DefaultRateLimits() {
		if err := h.Store.RateLimits.SetOverride(context.Background(), store.RateLimitOverride{
			OrgID: orgID, Bucket: bucket, MaxRequests: 1 << 30, WindowSeconds: 60,
		}); err != nil {
			h.T.Fatalf("apitest: override: %v", err)
		}
	}
}
