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
// Each side is measured twice: closed loop, each client sending its next request when the last
// is answered (throughput, and latency when saturated), then open loop at a fixed offered rate
// (latency at that throughput, the "1,000 decisions/s with p99 20 ms").
// SVC_BENCH_SECONDS sets the measuring time of each (default 4), SVC_BENCH_CLIENTS the number of
// concurrent clients (default 32), SVC_BENCH_RATE the offered rate (default 1000/s).
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

// poster posts bodies to one URL over clients keep-alive connections.
type poster struct {
	client *http.Client
	url    string
	key    string
	body   func() []byte
}

func newPoster(url, key string, clients int, body func() []byte) *poster {
	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, DisableCompression: true}
	return &poster{client: &http.Client{Transport: tr}, url: url, key: key, body: body}
}

func (p *poster) close() { p.client.CloseIdleConnections() }

func (p *poster) do() error {
	req, _ := http.NewRequest("POST", p.url, bytes.NewReader(p.body()))
	req.Header.Set("Content-Type", "application/json")
	if p.key != "" {
		req.Header.Set("Authorization", "Bearer "+p.key)
	}
	res, err := p.client.Do(req)
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

// run starts clients goroutines, each calling next until it returns false, and measures the
// latencies they report: how many requests the server can answer.
func run(b *testing.B, clients int, next func(i int) (time.Duration, bool, error)) result {
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	start := time.Now()
	for i := range lat {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for {
				d, more, err := next(i)
				if err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
					return
				}
				if !more {
					return
				}
				lat[i] = append(lat[i], d)
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

// load posts from clients closed-loop clients for d, each sending its next request when the
// last one is answered: the server's throughput, and its latency when saturated.
func load(b *testing.B, p *poster, clients int, d time.Duration) result {
	warm(b, p)
	deadline := time.Now().Add(d)
	return run(b, clients, func(int) (time.Duration, bool, error) {
		if time.Now().After(deadline) {
			return 0, false, nil
		}
		t0 := time.Now()
		err := p.do()
		return time.Since(t0), true, err
	})
}

// loadAt offers rate requests per second for d, spread over clients, open-loop: each request
// has its time in a fixed schedule, and its latency runs from that time, so a server falling
// behind is charged the wait of every request it delays (no coordinated omission). It measures
// the latency at a given throughput, as "1,000 decisions/s with p99 20 ms" states it.
func loadAt(b *testing.B, p *poster, clients int, d time.Duration, rate int) result {
	warm(b, p)
	start := time.Now()
	total := int(d.Seconds() * float64(rate))
	var seq atomic.Int64
	return run(b, clients, func(int) (time.Duration, bool, error) {
		n := int(seq.Add(1)) - 1
		if n >= total {
			return 0, false, nil
		}
		at := start.Add(time.Duration(n) * time.Second / time.Duration(rate))
		time.Sleep(time.Until(at))
		err := p.do()
		return time.Since(at), true, err
	})
}

// warm warms up connections, caches and the database.
func warm(b *testing.B, p *poster) {
	for range 100 {
		if err := p.do(); err != nil {
			b.Fatal(err)
		}
	}
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
	rate := envInt("SVC_BENCH_RATE", 1000)
	for _, bk := range storetest.Backends(b) {
		b.Run(bk.Name, func(b *testing.B) {
			// The server's clock runs: each second's events meet new counter buckets, as in a
			// deployment (a clock standing still put every event in the same bucket).
			h := apitest.New(b, apitest.Options{Backend: &bk, Clock: apitest.NewRunningClock(),
				Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
			h.NoRateLimits(h.Org.ID)
			publish(b, h)
			tr := &traffic{run: "tx"}
			for i := 0; i < 64; i++ {
				s := must(b, h.Do("POST", "/api/device-session", h.AdminKey, map[string]any{"deviceId": fmt.Sprintf("fp_%d", i), "ip": "10.0.0.1", "country": "DE"}), 201)
				tr.sessions = append(tr.sessions, s["id"].(string))
			}
			bare := httptest.NewServer(bareHandler(b, h.Store))
			b.Cleanup(bare.Close)
			floorP, svcP := newPoster(bare.URL+evaluatePath, "", clients, tr.body), newPoster(h.URL+evaluatePath, h.AdminKey, clients, tr.body)
			defer floorP.close()
			defer svcP.close()
			b.ResetTimer()
			var floor, svc, floorAt, svcAt result
			for i := 0; i < b.N; i++ {
				floor = load(b, floorP, clients, seconds)
				svc = load(b, svcP, clients, seconds)
				floorAt = loadAt(b, floorP, clients, seconds, rate)
				svcAt = loadAt(b, svcP, clients, seconds, rate)
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
			b.ReportMetric(float64(svcAt.p99.Microseconds()), "evaluate-p99-at-rate-µs")
			b.Logf("%s, %d clients, %s each, 20 rules, 6 velocity features:\n"+
				"  as fast as answered (closed loop):\n"+
				"    bare Gin parse + insert  %6.0f req/s        p50 %-10s p99 %s\n"+
				"    POST %s %6.0f decisions/s  p50 %-10s p99 %s\n"+
				"    ratio %.2f\n"+
				"  offered %d/s (open loop, latency from each request's scheduled time):\n"+
				"    bare Gin parse + insert  %6.0f req/s        p50 %-10s p99 %s\n"+
				"    POST %s %6.0f decisions/s  p50 %-10s p99 %s\n"+
				"  %d decisions stored, %d not approve, %d with rule errors",
				b.Name(), clients, seconds, floor.perSecond(), floor.p50, floor.p99, evaluatePath, svc.perSecond(), svc.p50, svc.p99, ratio,
				rate, floorAt.perSecond(), floorAt.p50, floorAt.p99, evaluatePath, svcAt.perSecond(), svcAt.p50, svcAt.p99,
				decisions, reviewed, ruleErrors)
		})
	}
}
