// Package chaos runs a steady mixed load against a cluster (deploy/cluster) while it kills,
// with SIGKILL at random moments, each svc api, each svc worker and the Temporal server, and
// restarts them; then it checks that nothing was lost or done twice. `make chaos` runs it.
package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svcplatform/svc/deploy/cluster"
	"github.com/svcplatform/svc/store"
)

// Options shape a chaos run.
type Options struct {
	Cluster cluster.Options
	// Load is how long the load and the kills go on; Settle bounds the wait for everything to
	// reach its end state afterwards.
	Load, Settle time.Duration
	// KillEvery is the mean time between two kills; each killed process is restarted after
	// one to three seconds.
	KillEvery time.Duration
	Seed      uint64
	// PDF is a document the load uploads (a one-page text PDF when nil).
	PDF []byte
	Log func(format string, args ...any)
}

// Report is what a run found.
type Report struct {
	Requests, NetworkErrors, Status503, Status429, InFlight409 int64
	Other5xx                                                   []string
	Kills                                                      map[string]int
	Executions, Documents, Events, Deliveries                  int
	Approvals                                                  int
	// Lost lists what did not reach its end state; Duplicates what was done more than once
	// beyond at-least-once delivery.
	Lost, Duplicates []string
	// Redelivered counts events received more than once (at-least-once, always the same id).
	Redelivered int
	// RateLimit is the check that one key's limit holds across the API processes.
	RateLimit RateLimitCheck
}

// OK reports whether the run kept every promise.
func (r Report) OK() bool {
	return len(r.Lost) == 0 && len(r.Duplicates) == 0 && len(r.Other5xx) == 0 && r.RateLimit.Held()
}

// String prints the figures.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "requests %d (network errors %d, 503 %d, 429 %d, 409 in progress %d, other 5xx %d)\n", r.Requests, r.NetworkErrors, r.Status503, r.Status429, r.InFlight409, len(r.Other5xx))
	fmt.Fprintf(&b, "kills %v\n", r.Kills)
	fmt.Fprintf(&b, "executions %d, approvals %d, documents %d, events %d, deliveries %d (events received more than once: %d)\n",
		r.Executions, r.Approvals, r.Documents, r.Events, r.Deliveries, r.Redelivered)
	fmt.Fprintf(&b, "%s (held: %t)\n", r.RateLimit, r.RateLimit.Held())
	for _, o := range r.RateLimit.Other {
		fmt.Fprintf(&b, "  rate-limit check answer: %s\n", o)
	}
	fmt.Fprintf(&b, "lost = %d, duplicates beyond at-least-once = %d\n", len(r.Lost), len(r.Duplicates))
	for _, l := range r.Lost {
		fmt.Fprintf(&b, "  lost: %s\n", l)
	}
	for _, d := range r.Duplicates {
		fmt.Fprintf(&b, "  duplicate: %s\n", d)
	}
	for _, e := range r.Other5xx {
		fmt.Fprintf(&b, "  5xx: %s\n", e)
	}
	return b.String()
}

// Run starts a fresh cluster, runs the load and the kills, waits for the end states, checks
// them and stops the cluster.
func Run(ctx context.Context, o Options) (Report, error) {
	if o.Log == nil {
		o.Log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	}
	if o.PDF == nil {
		o.PDF = onePagePDF("NPWP 09.254.294.3-407.000 NAMA BUDI SANTOSO")
	}
	o.Cluster.Fresh = true
	if o.Cluster.Env == nil {
		o.Cluster.Env = map[string]string{}
	}
	// A short ladder, so that failed attempts are retried within the run.
	o.Cluster.Env["SVC_WEBHOOKS_SCHEDULE"] = "0s,1s,2s,4s,8s,15s,30s,60s"
	o.Cluster.Log = o.Log
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	var rmu sync.Mutex
	roll := func() float64 { rmu.Lock(); defer rmu.Unlock(); return rng.Float64() }

	c, err := cluster.Start(ctx, o.Cluster)
	if err != nil {
		return Report{}, err
	}
	defer c.Stop()
	// The receiver fails one attempt in six and answers one in eight slowly.
	c.Receiver.Misbehave = func() (int, time.Duration) {
		switch x := roll(); {
		case x < 1.0/6:
			return http.StatusInternalServerError, 0
		case x < 1.0/6+1.0/8:
			return http.StatusOK, 2 * time.Second
		}
		return http.StatusOK, 0
	}
	stats := &Stats{}
	hc := &http.Client{Timeout: 30 * time.Second}
	admin := &client{bases: c.APIURLs, key: c.APIKey, http: hc, stats: stats}
	rev, err := c.Bootstrap(ctx, "--org-id", c.OrgID, "--user", "reviewer@chaos.local", "--role", "reviewer")
	if err != nil {
		return Report{}, err
	}
	reviewer := &client{bases: c.APIURLs, key: rev.APIKey, http: hc, stats: stats}
	if err := setup(admin, c.Receiver.URL); err != nil {
		return Report{}, err
	}

	load := &loadRun{admin: admin, reviewer: reviewer, pdf: o.PDF, roll: roll}
	loadCtx, stopLoad := context.WithTimeout(ctx, o.Load)
	defer stopLoad()
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); load.start(loadCtx) }()
	go func() { defer wg.Done(); load.approve(loadCtx) }()
	kills := map[string]int{}
	go func() { defer wg.Done(); killer(loadCtx, c, o.KillEvery, roll, kills, o.Log) }()
	wg.Wait()
	o.Log("load over: %d executions, %d documents started; settling", len(load.executions()), len(load.documents()))

	// Approvals still pending get decided while everything settles.
	settleCtx, stopSettle := context.WithTimeout(ctx, o.Settle)
	defer stopSettle()
	go load.approve(settleCtx)
	st, err := store.Open(ctx, c.DatabaseURL())
	if err != nil {
		return Report{}, err
	}
	defer st.Close()
	rl, err := checkRateLimit(settleCtx, c, st)
	if err != nil {
		return Report{}, fmt.Errorf("rate-limit check: %w", err)
	}
	o.Log("%s", rl)
	rep := Report{Kills: kills}
	check := func() Report {
		r := checkEndStates(ctx, st, c, load)
		r.Kills, r.RateLimit = kills, rl
		return r
	}
	for {
		rep = check()
		if len(rep.Lost) == 0 || settleCtx.Err() != nil {
			break
		}
		time.Sleep(2 * time.Second)
	}
	rep.Requests, rep.NetworkErrors = stats.Requests.Load(), stats.NetworkErrors.Load()
	rep.Status503, rep.Status429, rep.InFlight409 = stats.Status503.Load(), stats.Status429.Load(), stats.InFlight409.Load()
	rep.Other5xx = stats.Other5xx
	return rep, nil
}

// killer kills a random process about every mean, restarts it one to three seconds later,
// and never kills another before the last one is back.
func killer(ctx context.Context, c *cluster.Cluster, mean time.Duration, roll func() float64, kills map[string]int, log func(string, ...any)) {
	procs := c.Processes()
	for {
		wait := time.Duration((0.5 + roll()) * float64(mean))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		p := procs[int(roll()*float64(len(procs)))%len(procs)]
		log("kill -9 %s", p.Name)
		p.Kill()
		kills[p.Name]++
		time.Sleep(time.Second + time.Duration(roll()*float64(2*time.Second)))
		if err := p.Start(); err != nil {
			log("restart %s: %v", p.Name, err)
		}
	}
}

var counter atomic.Int64

func nextID(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano(), counter.Add(1))
}
