// Package fraudevaluate measures the anti-fraud fast path end to end: POST
// /api/transactions/evaluate of the real API on loopback HTTP (authentication, rate limit, parse,
// the published version of 20 rules reading 6 velocity features, the velocity counters, the
// decision and its evidence written in one transaction) under concurrent clients, beside, in the
// same run and on the same database, a bare Gin handler that parses the same JSON and inserts one
// row: the floor of "keep the evidence". It reports decisions/s, p50 and p99 of both and their
// ratio, on SQLite and (with SVC_TEST_POSTGRES_URL) PostgreSQL.
//
//	go test ./bench/fraudevaluate/ -run '^$' -bench Evaluate -benchtime 1x
//
// SVC_BENCH_SECONDS sets the measuring time of each side (default 4), SVC_BENCH_CLIENTS the number
// of concurrent clients (default 32).
package fraudevaluate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/bench/fraudengine"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

const evaluatePath = "/api/transactions/evaluate"

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

// traffic makes the request bodies: every transaction is new; customers, accounts, IPs,
// counterparties and device sessions repeat, so the velocity features count real history.
type traffic struct {
	run      string
	seq      atomic.Int64
	sessions []string
}

func (t *traffic) body() []byte {
	n := t.seq.Add(1)
	return fmt.Appendf(nil, `{"transaction": {"id": "%s-%d", "amount": %d.%02d, "currency": "EUR", "type": "card_payment",
		"customerId": "cus_%d", "accountId": "acc_%d", "counterparty": "%s", "channel": "web", "country": "%s", "ip": "10.0.%d.%d"},
		"deviceSessionId": %q, "attributes": {"mcc": "%d"}}`,
		t.run, n, 5+n%20*n%37, n%100, n%500, n%700, []string{"CRYPTO EXCHANGE", "GROCER", "AIRLINE"}[n%3],
		[]string{"DE", "DE", "DE", "DE", "FR", "NG"}[n%6], n%7, n%200, t.sessions[n%int64(len(t.sessions))], 6000+n%100)
}

// load posts bodies to url from clients goroutines for d and measures throughput and latency.
func load(b *testing.B, url, key string, clients int, d time.Duration, body func() []byte) result {
	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	do := func() error {
		req, _ := http.NewRequest("POST", url, bytes.NewReader(body()))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("status %d: %s", res.StatusCode, out)
		}
		return nil
	}
	for i := 0; i < 100; i++ { // warm up connections, caches and the database
		if err := do(); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
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

func must(b *testing.B, res *apitest.Response, status int) map[string]any {
	b.Helper()
	if res.Status != status {
		b.Fatalf("status %d, want %d: %s", res.Status, status, res.Body)
	}
	return res.Data()
}

// publish puts the 20-rule version of fraudengine through its four-eyes life cycle over the
// API: drafted by the admin, approved by a second user, published.
func publish(b *testing.B, h *apitest.Harness) {
	u := &store.User{ID: ids.New(ids.User), OrgID: h.Org.ID, Email: "checker@bench.example", Role: auth.RoleAdmin}
	if err := h.Store.Users.Create(context.Background(), u); err != nil {
		b.Fatal(err)
	}
	checker, _ := h.KeyWith(apitest.KeySpec{Scopes: []string{"write"}, ActAsUserID: u.ID})
	rs := must(b, h.Do("POST", "/api/rulesets", h.AdminKey, map[string]any{"name": "Cards", "appliesTo": "transaction"}), 201)
	base := "/api/rulesets/" + rs["id"].(string) + "/versions"
	must(b, h.Do("POST", base, h.AdminKey, map[string]any{"rules": fraudengine.Specs(), "thresholds": fraudengine.Thresholds()}), 201)
	must(b, h.Do("POST", base+"/1/submit", h.AdminKey, nil), 200)
	must(b, h.Do("POST", base+"/1/approve", checker, nil), 200)
	must(b, h.Do("POST", base+"/1/publish", h.AdminKey, nil), 200)
	must(b, h.Do("PUT", "/api/fraud-lists/"+fraudengine.ListName, h.AdminKey, map[string]any{"values": []string{"NG", "KP"}}), 200)
}

// bareHandler parses the same JSON into the request's shape and inserts one row with the
// transaction and the body as evidence, through the same store's pool.
func bareHandler(b *testing.B, st *store.Store) http.Handler {
	if err := st.DB.Exec(`CREATE TABLE bench_fraud_evidence (id VARCHAR(80) PRIMARY KEY, customer_id VARCHAR(128),
		amount DOUBLE PRECISION, currency VARCHAR(3), body TEXT, created_at BIGINT)`).Error; err != nil {
		b.Fatal(err)
	}
	type request struct {
		Transaction struct {
			ID, Currency, Type, CustomerID, AccountID, Counterparty, Channel, Country, IP string
			Amount                                                                        float64
		} `json:"transaction"`
		DeviceSessionID string         `json:"deviceSessionId"`
		Attributes      map[string]any `json:"attributes"`
	}
	gin.SetMode(gin.ReleaseMode)
	g := gin.New()
	g.POST(evaluatePath, func(c *gin.Context) {
		raw, err := io.ReadAll(c.Request.Body)
		var req request
		if err == nil {
			err = json.Unmarshal(raw, &req)
		}
		if err != nil {
			c.AbortWithStatus(http.StatusBadRequest)
			return
		}
		t := req.Transaction
		if err := st.DB.WithContext(c.Request.Context()).Exec(`INSERT INTO bench_fraud_evidence (id, customer_id, amount, currency, body, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, t.ID, t.CustomerID, t.Amount, t.Currency, string(raw), time.Now().UnixMilli()).Error; err != nil {
			c.AbortWithStatus(http.StatusInternalServerError)
			return
		}
		c.JSON(http.StatusOK, gin.H{"data": gin.H{"id": t.ID, "outcome": "approve"}})
	})
	return g
}

// BenchmarkEvaluate measures the bare handler and then the evaluator, per database, and
// reports both sides and their throughput ratio.
func BenchmarkEvaluate(b *testing.B) {
	seconds := time.Duration(envInt("SVC_BENCH_SECONDS", 4)) * time.Second
	clients := envInt("SVC_BENCH_CLIENTS", 32)
	for _, bk := range storetest.Backends(b) {
		b.Run(bk.Name, func(b *testing.B) {
			h := apitest.New(b, apitest.Options{Backend: &bk, Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
			h.NoRateLimits(h.Org.ID)
			publish(b, h)
			tr := &traffic{run: "tx"}
			for i := 0; i < 64; i++ {
				s := must(b, h.Do("POST", "/api/device-session", h.AdminKey, map[string]any{"deviceId": fmt.Sprintf("fp_%d", i), "ip": "10.0.0.1", "country": "DE"}), 201)
				tr.sessions = append(tr.sessions, s["id"].(string))
			}
			bare := httptest.NewServer(bareHandler(b, h.Store))
			b.Cleanup(bare.Close)
			b.ResetTimer()
			var floor, svc result
			for i := 0; i < b.N; i++ {
				floor = load(b, bare.URL+evaluatePath, "", clients, seconds, tr.body)
				svc = load(b, h.URL+evaluatePath, h.AdminKey, clients, seconds, tr.body)
			}
			b.StopTimer()
			var decisions, ruleErrors, reviewed int64
			_ = h.Store.DB.Model(&store.FraudDecision{}).Where("org_id = ?", h.Org.ID).Count(&decisions).Error
			_ = h.Store.DB.Model(&store.FraudDecision{}).Where("org_id = ? AND result LIKE ?", h.Org.ID, "%ruleErrors%").Count(&ruleErrors).Error
			_ = h.Store.DB.Model(&store.FraudDecision{}).Where("org_id = ? AND outcome <> ?", h.Org.ID, "approve").Count(&reviewed).Error
			// Rule errors are reported, not failed on: under load the wall-clock evaluation budget
			// (fraud.rule_budget) can fire, and how often is part of the measurement.
			b.ReportMetric(float64(ruleErrors), "rule-errors")
			if reviewed == 0 {
				b.Errorf("no decision of %d reached a threshold: the rules did not see the traffic", decisions)
			}
			ratio := svc.perSecond() / floor.perSecond()
			b.ReportMetric(floor.perSecond(), "bare-req/s")
			b.ReportMetric(svc.perSecond(), "decisions/s")
			b.ReportMetric(ratio, "evaluate/bare")
			b.ReportMetric(float64(floor.p99.Microseconds()), "bare-p99-µs")
			b.ReportMetric(float64(svc.p99.Microseconds()), "evaluate-p99-µs")
			b.Logf("%s, %d clients, %s each, 20 rules, 6 velocity features:\n  bare Gin parse + insert  %6.0f req/s        p50 %-10s p99 %s\n  POST %s %6.0f decisions/s  p50 %-10s p99 %s\n  ratio %.2f; %d decisions stored, %d not approve, %d with rule errors",
				b.Name(), clients, seconds, floor.perSecond(), floor.p50, floor.p99, evaluatePath, svc.perSecond(), svc.p50, svc.p99,
				ratio, decisions, reviewed, ruleErrors)
		})
	}
}
