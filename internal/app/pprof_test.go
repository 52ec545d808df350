package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
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
