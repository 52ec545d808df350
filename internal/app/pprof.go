package app

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// ServeProfiles serves Go's profiles (net/http/pprof under /debug/pprof/) on addr, config
// http.pprof_addr, until ctx ends; an empty addr serves nothing (the default). They get a
// listener of their own, never the API's: a profile shows the process's internals, so bind it
// to loopback. It returns once the listener is bound (its address), or the bind's error.
func ServeProfiles(ctx context.Context, addr string, log *slog.Logger) (net.Addr, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("pprof server stopped", "error", err)
		}
	}()
	log.Info("profiles served (http.pprof_addr)", "addr", ln.Addr().String())
	return ln.Addr(), nil
}
