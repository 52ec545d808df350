// Package api is svc's REST contract: one route table, one set of middleware, one way to answer.
// The platform's routes live here; each product's routes come from api/<product> (see Product),
// and the list of products is built in one place, api/products.
package api

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/blobs"
	"github.com/svcplatform/svc/internal/ratelimit"
	"github.com/svcplatform/svc/store"
)

// Deps are what the API needs; the caller builds them.
type Deps struct {
	Config   *config.Config
	Store    *store.Store
	Temporal client.Client
	Logger   *slog.Logger
	// Registry receives the API's metrics; the worker's SDK metrics go to the same one.
	Registry *prometheus.Registry
	// Now is the clock; nil means time.Now. Tests set it to control expiry and rotation.
	Now func() time.Time
	// RateLimits stores rate-limit counters; nil means config ratelimit.store (database or memory).
	RateLimits ratelimit.Store
	// Blobs keeps uploaded files (the documents product); nil means a local directory at
	// config documents.blob_dir.
	Blobs blobs.Store
	// Degraded names the capabilities of this process that work only in part, and why (the
	// documents' programs missing where the worker runs in this process); /readyz shows them.
	Degraded func() map[string]string
	// Dev is true under `svc dev` (plain HTTP on loopback): session cookies are then not Secure.
	Dev bool
}

// Server is the HTTP API.
type Server struct {
	Deps
	engine  *gin.Engine
	metrics *httpMetrics
	routes  []Route
	sec     *security
}

// New builds the API: the platform's routes plus those of products (api/products.All builds
// them), in one route table.
func New(d Deps, products ...Product) *Server {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Registry == nil {
		d.Registry = prometheus.NewRegistry()
	}
	gin.SetMode(gin.ReleaseMode)
	s := &Server{Deps: d}
	s.metrics = newHTTPMetrics(d.Registry)
	s.sec = newSecurity(s.Deps)
	s.routes = s.platformRoutes()
	for _, p := range products {
		s.routes = append(s.routes, p.Routes()...)
	}
	s.engine = s.buildEngine()
	return s
}

// Handler is the root http.Handler.
func (s *Server) Handler() http.Handler { return s.engine }

// Mount serves h for prefix and every path under it (the dashboard's pages), behind the
// request id, panic recovery and access log every route has; the route table does not hold them.
func (s *Server) Mount(prefix string, h http.Handler) {
	s.engine.Any(prefix, gin.WrapH(h))
	s.engine.Any(prefix+"/*path", gin.WrapH(h))
}

// RouteTable returns the routes this server serves.
func (s *Server) RouteTable() []Route { return append([]Route(nil), s.routes...) }

// Serve answers requests on ln until ctx ends, then stops accepting and drains in-flight
// requests for up to grace.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	srv := &http.Server{
		Handler:           s.engine,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; err != nil && err != http.ErrServerClosed {
		return err
	}
	return nil
}
