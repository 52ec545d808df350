// Package e2e boots the same stack as `svc dev` (embedded Temporal and UI, worker, API) on free
// ports in a temporary directory and drives it over real HTTP on loopback.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/devserver"
	"github.com/svcplatform/svc/internal/devstack"
)

// bootOptions tune a stack for a test.
type bootOptions struct {
	env []string
	// secrets are further strings (passwords the test sends) that no log line may contain.
	secrets []string
}

// boot starts a dev stack on dataDir with fresh ports; it is stopped when the test ends. The
// ports are picked free and then bound by the stack: another process may take one in between
// (seen on a loaded machine), so a start that fails with "address already in use" is tried
// again on other ports.
func boot(t *testing.T, dataDir string, o bootOptions) *devstack.Stack {
	t.Helper()
	var (
		s    *devstack.Stack
		logs *secretScanner
		err  error
	)
	for attempt := 1; ; attempt++ {
		s, logs, err = startStack(t, dataDir, o)
		if err == nil {
			break
		}
		if attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			t.Fatalf("devstack.Start: %v", err)
		}
		t.Logf("devstack.Start: %v; again on other ports", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
		if leak := logs.leak(); leak != "" {
			t.Errorf("a secret was logged: %s", leak)
		}
	})
	return s
}

// startStack starts one dev stack on fresh ports, with every log line scanned for secrets.
func startStack(t *testing.T, dataDir string, o bootOptions) (*devstack.Stack, *secretScanner, error) {
	t.Helper()
	ports := make([]int, 3)
	for i := range ports {
		p, err := devserver.FreePort()
		if err != nil {
			return nil, nil, err
		}
		ports[i] = p
	}
	environ := append([]string{
		"SVC_DATA_DIR=" + dataDir,
		"SVC_HTTP_ADDR=127.0.0.1:" + strconv.Itoa(ports[0]),
		"SVC_TEMPORAL_PORT=" + strconv.Itoa(ports[1]),
		"SVC_TEMPORAL_UI_PORT=" + strconv.Itoa(ports[2]),
		"SVC_RATELIMIT_STORE=memory",
	}, o.env...)
	cfg, err := config.Load(config.Options{Environ: environ, File: os.DevNull})
	if err != nil {
		return nil, nil, err
	}
	level := slog.LevelWarn
	if os.Getenv("SVC_TEST_VERBOSE") != "" {
		level = slog.LevelDebug
	}
	// Every log line, at every level, is scanned: no secret may ever be logged.
	logs := &secretScanner{secrets: o.secrets}
	logger := slog.New(teeHandler{
		slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}),
		slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: level}),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := devstack.Start(ctx, cfg, logger)
	return s, logs, err
}

// secretScanner records log output and finds API keys, webhook secrets or any of secrets in it.
type secretScanner struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	secrets []string
}

func (s *secretScanner) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *secretScanner) leak() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, line := range strings.Split(s.buf.String(), "\n") {
		if strings.Contains(line, "svc_sk_") || strings.Contains(line, "svc_whsec_") || strings.Contains(strings.ToLower(line), "authorization: bearer") {
			return line
		}
		for _, secret := range s.secrets {
			if strings.Contains(line, secret) {
				return line
			}
		}
	}
	return ""
}

// teeHandler sends every record to a (the scanner, at debug level) and to b (the test log).
type teeHandler struct{ a, b slog.Handler }

func (h teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.a.Enabled(ctx, l) || h.b.Enabled(ctx, l)
}

func (h teeHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.a.Enabled(ctx, r.Level) {
		_ = h.a.Handle(ctx, r.Clone())
	}
	if h.b.Enabled(ctx, r.Level) {
		return h.b.Handle(ctx, r)
	}
	return nil
}

func (h teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return teeHandler{h.a.WithAttrs(as), h.b.WithAttrs(as)}
}

func (h teeHandler) WithGroup(name string) slog.Handler {
	return teeHandler{h.a.WithGroup(name), h.b.WithGroup(name)}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// client calls the API with a key.
type client struct {
	t    *testing.T
	base string
	key  string
}

// response is a decoded API answer.
type response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

func (c client) do(method, path string, body any) response {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.send(req)
}

// send sends req with the client's key and decodes the answer, which must match openapi.yaml.
func (c client) send(req *http.Request) response {
	c.t.Helper()
	method, path := req.Method, req.URL.RequestURI()
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	// Every answer of the real stack must match openapi.yaml, as in the API's own tests.
	if err := validatorFor(c.t, c.base).Check(req, res.StatusCode, res.Header, raw); err != nil {
		c.t.Errorf("%s %s → %d does not match openapi.yaml: %v\nbody: %.2000s", method, path, res.StatusCode, err, raw)
	}
	if len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &out.Body); err != nil {
			c.t.Fatalf("%s %s: bad JSON %q: %v", method, path, raw, err)
		}
	}
	return out
}

var validators sync.Map // base URL → *apitest.Validator

func validatorFor(t *testing.T, base string) *apitest.Validator {
	t.Helper()
	if v, ok := validators.Load(base); ok {
		return v.(*apitest.Validator)
	}
	v, err := apitest.NewValidator(base)
	if err != nil {
		t.Fatal(err)
	}
	validators.Store(base, v)
	return v
}

// data is the "data" object of a success envelope.
func (r response) data(t *testing.T) map[string]any {
	t.Helper()
	d, ok := r.Body["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object in %s", r.Raw)
	}
	return d
}

// eventually polls fn until it reports true or the deadline passes.
//
// It polls every 100 ms at first, then less often (up to once a second): a poll of the API
// counts against the key's read limit (600 a minute), which a minute of polling at 10 a
// second would exceed.
func eventually(t *testing.T, within time.Duration, what string, fn func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	pause := 100 * time.Millisecond
	for !fn() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(pause)
		pause = min(pause*3/2, time.Second)
	}
}

func str(v any) string { return fmt.Sprint(v) }
