package client_test

import (
	"context"
	"log"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/devserver"
	"github.com/svcplatform/svc/internal/devstack"
)

// The examples and the TypeScript client run against one real embedded stack (Temporal, the
// worker and the API on loopback), booted by the first test that needs it and stopped by
// TestMain.
var (
	stackOnce sync.Once
	stack     *devstack.Stack
	stackDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if stack != nil {
		if err := stack.Stop(); err != nil {
			log.Printf("stop stack: %v", err)
			code = 1
		}
	}
	_ = os.RemoveAll(stackDir)
	os.Exit(code)
}

// svc returns the running stack's base URL and its sandbox key (bound to the admin user,
// every scope), booting the stack on first use.
func svc() (baseURL, key string) {
	stackOnce.Do(func() {
		var err error
		if stackDir, err = os.MkdirTemp("", "svc-client-*"); err != nil {
			log.Fatal(err)
		}
		for attempt := 1; attempt <= 3; attempt++ {
			if stack, err = boot(stackDir); err == nil {
				return
			}
			log.Printf("boot: %v; again on other ports", err)
		}
		log.Fatalf("boot the embedded stack: %v", err)
	})
	return stack.BaseURL, stack.Credentials.APIKey
}

func boot(dir string) (*devstack.Stack, error) {
	env := []string{"SVC_DATA_DIR=" + dir, "SVC_RATELIMIT_STORE=memory"}
	for _, name := range []string{"SVC_HTTP_ADDR", "SVC_TEMPORAL_PORT", "SVC_TEMPORAL_UI_PORT"} {
		p, err := devserver.FreePort()
		if err != nil {
			return nil, err
		}
		v := strconv.Itoa(p)
		if name == "SVC_HTTP_ADDR" {
			v = "127.0.0.1:" + v
		}
		env = append(env, name+"="+v)
	}
	cfg, err := config.Load(config.Options{Environ: env, File: os.DevNull})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return devstack.Start(ctx, cfg, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}
