package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestServeProfiles: profiles are served only when an address is configured, on their own
// listener.
func TestServeProfiles(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if addr, err := ServeProfiles(ctx, "", slog.Default()); addr != nil || err != nil {
		t.Fatalf("no address: served on %v, %v", addr, err)
	}
	addr, err := ServeProfiles(ctx, "127.0.0.1:0", slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get("http://" + addr.String() + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "goroutine") {
		t.Fatalf("GET /debug/pprof/ = %d %.200s", res.StatusCode, body)
	}
	cancel()
}

// TestServeWorkerMetrics: a worker's registry is served at /metrics only when an address is
// configured (the AI automation product's token counters live in the worker's process).
func TestServeWorkerMetrics(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg := prometheus.NewRegistry()
	if addr, err := ServeWorkerMetrics(ctx, "", reg, slog.Default()); addr != nil || err != nil {
		t.Fatalf("no address: served on %v, %v", addr, err)
	}
	tokens := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "svc_ai_tokens_total", Help: "h"}, []string{"org", "model", "kind"})
	reg.MustRegister(tokens)
	tokens.WithLabelValues("org_1", "m", "prompt").Add(7)
	addr, err := ServeWorkerMetrics(ctx, "127.0.0.1:0", reg, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get("http://" + addr.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), `svc_ai_tokens_total{kind="prompt",model="m",org="org_1"} 7`) {
		t.Fatalf("GET /metrics = %d %.300s", res.StatusCode, body)
	}
}
