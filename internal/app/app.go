// Package app wires svc's parts from a Config: the store, the Temporal client, the API and the
// workers. cmd/svc and the end-to-end tests build the platform through it.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/products"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/dashboard"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/worker"
)

// App is an opened platform: a migrated store and a connected Temporal client.
type App struct {
	Config   *config.Config
	Logger   *slog.Logger
	Store    *store.Store
	Temporal client.Client
	Registry *prometheus.Registry

	metricsCloser io.Closer
	// localWorker is set once Workers is called: the API then reports the worker's degraded
	// capabilities too (svc dev runs both in one process).
	localWorker bool
	// dev is Options.Dev.
	dev bool
}

// Options control Open.
type Options struct {
	// Migrate runs the store migrations (svc dev, svc migrate); without it (svc api, svc worker)
	// Open fails when migrations are pending.
	Migrate bool
	// TemporalAddress overrides config temporal.address (svc dev passes the embedded server's).
	TemporalAddress string
	// Dev marks `svc dev`: plain HTTP on loopback, so session cookies are not Secure.
	Dev bool
}

// Open connects to the database and Temporal.
func Open(ctx context.Context, cfg *config.Config, logger *slog.Logger, o Options) (*App, error) {
	st, err := store.Open(ctx, cfg.DatabaseURL())
	if err != nil {
		return nil, err
	}
	migrate := st.RequireMigrated
	if o.Migrate {
		migrate = st.Migrate
	}
	if err := migrate(ctx); err != nil {
		_ = st.Close()
		return nil, err
	}
	addr := o.TemporalAddress
	if addr == "" {
		addr = cfg.Temporal.Address
	}
	if addr == "" {
		_ = st.Close()
		return nil, errors.New("config: temporal.address (SVC_TEMPORAL_ADDRESS) is required")
	}
	reg := prometheus.NewRegistry()
	mh, mclose := sdkMetrics(reg, logger)
	tc, err := dialTemporal(ctx, client.Options{
		HostPort:       addr,
		Namespace:      cfg.Temporal.Namespace,
		Logger:         newSDKLogger(logger.With("component", "temporal-sdk")),
		MetricsHandler: mh,
	})
	if err != nil {
		_ = mclose.Close()
		_ = st.Close()
		return nil, err
	}
	return &App{Config: cfg, Logger: logger, Store: st, Temporal: tc, Registry: reg, metricsCloser: mclose, dev: o.Dev}, nil
}

func dialTemporal(ctx context.Context, opts client.Options) (client.Client, error) {
	var lastErr error
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		c, err := client.DialContext(ctx, opts)
		if err == nil {
			return c, nil
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil, fmt.Errorf("temporal at %s: %w", opts.HostPort, lastErr)
}

// API builds the HTTP API, with the dashboard's pages under /dashboard.
func (a *App) API() *api.Server {
	deps := api.Deps{Config: a.Config, Store: a.Store, Temporal: a.Temporal, Logger: a.Logger, Registry: a.Registry, Dev: a.dev}
	if a.localWorker {
		// svc dev: the worker runs here, so the programs it needs are this machine's concern.
		engine := docintel.NewEngine(docintel.Config{})
		deps.Degraded = func() map[string]string {
			if missing := engine.MissingTools(); len(missing) > 0 {
				return map[string]string{"documents": "not installed: " + strings.Join(missing, ", ") + " (" + docintel.InstallCommand(missing) + ")"}
			}
			return nil
		}
	}
	srv := api.New(deps, products.All(deps)...)
	srv.Mount(dashboard.Prefix, dashboard.New(dashboard.Deps{API: srv.Handler(), Store: a.Store, Config: a.Config, Logger: a.Logger, Dev: a.dev}))
	return srv
}

// Workers builds the Temporal workers.
func (a *App) Workers() (*worker.Workers, error) {
	a.localWorker = true
	return worker.New(a.Temporal, worker.Deps{Config: a.Config, Store: a.Store, Logger: a.Logger, Registry: a.Registry})
}

// ServeAPI serves the API on addr until ctx ends; ready is called once the listener is bound.
func (a *App) ServeAPI(ctx context.Context, addr string, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("http.addr %s: %w", addr, err)
	}
	if ready != nil {
		ready(ln.Addr())
	}
	return a.API().Serve(ctx, ln, a.Config.HTTP.ShutdownGrace)
}

// Close releases the Temporal client and the database.
func (a *App) Close() {
	a.Temporal.Close()
	_ = a.metricsCloser.Close()
	_ = a.Store.Close()
}
