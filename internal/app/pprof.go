package app

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ServeProfiles serves Go's profiles (net/http/pprof under /debug/pprof/) on addr, config
// http.pprof_addr, until ctx ends; an empty addr serves nothing (the default). They get a
// listener of their own, never the API's: a profile shows the process's internals, so bind it
// to loopback. It returns once the listener is bound (its address), or the bind's error.
func ServeProfiles(ctx context.Context, addr string, log *slog.Logger) (net.Addr, error) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return serveOwn(ctx, addr, mux, "profiles served (http.pprof_addr)", log)
}

// ServeWorkerMetrics serves reg at /metrics on addr, config http.worker_metrics_addr, until
// ctx ends; an empty addr serves nothing. svc worker has no API: what its activities measure
// (the AI automation product's tokens and latency, the SDK's task metrics) is scraped here.
func ServeWorkerMetrics(ctx context.Context, addr string, reg *prometheus.Registry, log *slog.Logger) (net.Addr, error) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return serveOwn(ctx, addr, mux, "worker metrics served (http.worker_metrics_addr)", log)
}

// serveOwn serves h on a listener of its own at addr until ctx ends; an empty addr serves
// nothing. It returns once the listener is bound (its address), or the bind's error.
func serveOwn(ctx context.Context, addr string, h http.Handler, what string, log *slog.Logger) (net.Addr, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("server stopped", "what", what, "error", err)
		}
	}()
	log.Info(what, "addr", ln.Addr().String())
	return ln.Addr(), nil
}
