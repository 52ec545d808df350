// Package authn benchmarks what authentication and the common middleware cost a request: an
// authenticated GET list endpoint of the real API (key lookup, scope check, rate limit, request
// id, access log, metrics, database read) against the same route's handler mounted without any
// middleware (the principal set directly), the ratio issue 18 asks for; beside them, for scale, a
// bare Gin handler answering the same JSON bytes with and without the same database read. All on
// loopback HTTP in the same run, under the same concurrent load.
//
//	go test ./bench/authn/ -run '^$' -bench AuthOverhead -benchtime 1x
//
// SVC_BENCH_SECONDS sets the measuring time of each side (default 4), SVC_BENCH_CLIENTS the number
// of concurrent clients (default 16). SVC_TEST_POSTGRES_URL adds a PostgreSQL run.
package authn

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/products"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// listPath is the measured endpoint: one page of 20 users.
const listPath = "/api/users?limit=20"

// result is one side's measurement.
type result struct {
	requests int
	elapsed  time.Duration
	p50, p99 time.Duration
}

func (r result) perSecond() float64 { return float64(r.requests) / r.elapsed.Seconds() }

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// load sends GETs to url from clients goroutines for d and measures throughput and latency.
func load(b *testing.B, url, key string, clients int, d time.Duration) result {
	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	do := func() error {
		req, _ := http.NewRequest("GET", url, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	}
	for i := 0; i < 200; i++ { // warm up connections, caches and the database
		if err := do(); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	var failed error
	var mu sync.Mutex
	start := time.Now()
	deadline := start.Add(d)
	for i := range lat {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if err := do(); err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
					return
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)
	if failed != nil {
		b.Fatal(failed)
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	return result{requests: len(all), elapsed: elapsed, p50: all[len(all)/2], p99: all[len(all)*99/100]}
}

// setup starts the real API on backend with a key and 20 users, and a bare Gin server answering
// the same bytes.
func setup(b *testing.B, backend storetest.Backend, rateStore string) (authURL, bareURL, key string) {
	st := storetest.Open(b, backend)
	ctx := context.Background()
	res, err := st.Orgs.Bootstrap(ctx, store.BootstrapInput{OrgName: "Bench", Email: "admin@bench.example", Environment: "sandbox"})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		u := &store.User{ID: ids.New(ids.User), OrgID: res.Org.ID, Email: fmt.Sprintf("user%d@bench.example", i), Name: "User", Role: "viewer"}
		if err := st.Users.Create(ctx, u); err != nil {
			b.Fatal(err)
		}
	}
	// The read bucket is 600 a minute; raise it so the benchmark measures the limiter, not the limit.
	if err := st.RateLimits.SetOverride(ctx, store.RateLimitOverride{OrgID: res.Org.ID, Bucket: api.BucketRead, MaxRequests: 1 << 30, WindowSeconds: 60}); err != nil {
		b.Fatal(err)
	}
	cfg, err := config.Load(config.Options{Environ: []string{"SVC_DATA_DIR=" + b.TempDir(), "SVC_RATELIMIT_STORE=" + rateStore}})
	if err != nil {
		b.Fatal(err)
	}
	// Access-log lines (info) are off, as the bare handler writes none; warnings still format.
	quiet := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	deps := api.Deps{Config: cfg, Store: st, Logger: quiet}
	srv := api.New(deps, products.All(deps)...)
	authTS := httptest.NewServer(srv.Handler())
	b.Cleanup(authTS.Close)

	req, _ := http.NewRequest("GET", authTS.URL+listPath, nil)
	req.Header.Set("Authorization", "Bearer "+res.Secret)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 200 {
		b.Fatalf("authenticated list: %d %s", r.StatusCode, body)
	}
	gin.SetMode(gin.ReleaseMode)
	bare := gin.New()
	bare.GET("/api/users", func(c *gin.Context) { c.Data(http.StatusOK, "application/json; charset=utf-8", body) })
	// The same bytes after the same database read, without authentication or middleware: the
	// difference to the authenticated endpoint is what authentication and rate limiting cost.
	bare.GET("/read/api/users", func(c *gin.Context) {
		if _, _, err := st.Users.List(c.Request.Context(), res.Org.ID, store.Offset{Page: 1, Limit: 20}, store.Filter{}); err != nil {
			c.AbortWithStatus(http.StatusInternalServerError)
			return
		}
		c.Data(http.StatusOK, "application/json; charset=utf-8", body)
	})
	// The same handler of the route table without any middleware: the principal authentication
	// would set is set directly, so the difference to the authenticated endpoint is exactly what
	// authentication, scope, rate limit, request id, logging and metrics cost (issue 18's baseline).
	bare.GET("/handler/api/users", func(c *gin.Context) {
		api.SetPrincipal(c, &auth.Principal{OrgID: res.Org.ID, Environment: "sandbox", APIKeyID: res.Key.ID, Scopes: res.Key.Scopes,
			UserID: res.User.ID, UserRole: res.User.Role, UserScopes: auth.RoleScopes(res.User.Role)})
		c.Next()
	}, routeHandler(b, deps, "GET", "/api/users"))
	bareTS := httptest.NewServer(bare)
	b.Cleanup(bareTS.Close)
	return authTS.URL + listPath, bareTS.URL, res.Secret
}

// routeHandler is the handler the route table serves method path with.
func routeHandler(b *testing.B, deps api.Deps, method, path string) gin.HandlerFunc {
	for _, p := range products.All(deps) {
		for _, r := range p.Routes() {
			if r.Method == method && r.Path == path {
				return r.Handler
			}
		}
	}
	b.Fatalf("no route %s %s", method, path)
	return nil
}

// backendNames lists the databases to measure on.
func backendNames(b *testing.B) []string {
	var out []string
	for _, bk := range storetest.Backends(b) {
		out = append(out, bk.Name)
	}
	return out
}

// backend makes a fresh database of the named kind for one sub-benchmark.
func backend(b *testing.B, name string) storetest.Backend {
	for _, bk := range storetest.Backends(b) {
		if bk.Name == name {
			return bk
		}
	}
	b.Fatalf("no backend %s", name)
	return storetest.Backend{}
}

// BenchmarkAuthOverhead measures the bare handler and then the authenticated endpoint, per
// database and rate-limit store, and reports both sides and their throughput ratio.
func BenchmarkAuthOverhead(b *testing.B) {
	seconds := time.Duration(envInt("SVC_BENCH_SECONDS", 4)) * time.Second
	clients := envInt("SVC_BENCH_CLIENTS", 16)
	for _, name := range backendNames(b) {
		for _, rateStore := range []string{"database", "memory"} {
			b.Run(name+"/ratelimit="+rateStore, func(b *testing.B) {
				authURL, bareURL, key := setup(b, backend(b, name), rateStore)
				b.ResetTimer()
				var bare, read, handler, authd result
				for i := 0; i < b.N; i++ {
					bare = load(b, bareURL+listPath, "", clients, seconds)
					read = load(b, bareURL+"/read"+listPath, "", clients, seconds)
					handler = load(b, bareURL+"/handler"+listPath, "", clients, seconds)
					authd = load(b, authURL, key, clients, seconds)
				}
				ratio := authd.perSecond() / handler.perSecond()
				b.ReportMetric(bare.perSecond(), "bare-req/s")
				b.ReportMetric(read.perSecond(), "bare+read-req/s")
				b.ReportMetric(handler.perSecond(), "handler-req/s")
				b.ReportMetric(authd.perSecond(), "auth-req/s")
				b.ReportMetric(ratio, "auth/handler")
				b.ReportMetric(authd.perSecond()/read.perSecond(), "auth/bare+read")
				for _, m := range []struct {
					name string
					r    result
				}{{"bare", bare}, {"bare+read", read}, {"handler", handler}, {"auth", authd}} {
					b.ReportMetric(float64(m.r.p50.Microseconds()), m.name+"-p50-µs")
					b.ReportMetric(float64(m.r.p99.Microseconds()), m.name+"-p99-µs")
				}
				b.Logf("%s, %d clients, %s each:\n  bare handler (same bytes)    %6.0f req/s  p50 %-10s p99 %s\n  bare + same read             %6.0f req/s  p50 %-10s p99 %s\n  same handler, no middleware  %6.0f req/s  p50 %-10s p99 %s\n  authenticated list           %6.0f req/s  p50 %-10s p99 %s\n  ratio authenticated/handler %.2f (authenticated/(bare + read) %.2f)",
					b.Name(), clients, seconds, bare.perSecond(), bare.p50, bare.p99, read.perSecond(), read.p50, read.p99,
					handler.perSecond(), handler.p50, handler.p99, authd.perSecond(), authd.p50, authd.p99, ratio, authd.perSecond()/read.perSecond())
			})
		}
	}
}
