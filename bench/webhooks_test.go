package bench

import (
	"context"
	"errors"
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

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	hookacts "github.com/svcplatform/svc/activities/webhooks"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/devserver"
	"github.com/svcplatform/svc/internal/devstack"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/webhook"
	"github.com/svcplatform/svc/workflows"
)

// fanOut is how many subscriptions one event goes to in BenchmarkWebhookFanOut.
const fanOut = 100

// baselineQueue is the task queue of the baseline's empty workflow.
const baselineQueue = "bench-baseline"

// emptyWorkflow is the baseline: the least a delivery workflow can cost on the same server.
func emptyWorkflow(workflow.Context) error { return nil }

// env is one booted stack shared by the benchmarks of a run.
type env struct {
	dir      string
	stack    *devstack.Stack
	hooks    *hookacts.Activities
	baseline sdkworker.Worker
	rcv      *arrivals
	url      string
}

var (
	shared    *env
	errShared error
	bootOnce  sync.Once
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.baseline.Stop()
		_ = shared.stack.Stop()
		shared.rcv.srv.Close()
		_ = os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// stack boots the embedded stack once per run, on free ports in a temporary directory.
func stack(b *testing.B) *env {
	b.Helper()
	bootOnce.Do(func() { shared, errShared = boot() })
	if errShared != nil {
		b.Fatal(errShared)
	}
	return shared
}

// perRun returns a getter of what newFn makes on the shared stack, made once per run.
func perRun[T any](newFn func(*env) (T, error)) func(*testing.B) T {
	once := sync.OnceValues(func() (T, error) { return newFn(shared) })
	return func(b *testing.B) T {
		b.Helper()
		stack(b)
		v, err := once()
		if err != nil {
			b.Fatal(err)
		}
		return v
	}
}

func boot() (*env, error) {
	dir, err := os.MkdirTemp("", "svc-bench-")
	if err != nil {
		return nil, err
	}
	environ := []string{"SVC_DATA_DIR=" + dir, "SVC_RATELIMIT_STORE=memory"}
	for _, k := range []string{"SVC_HTTP_ADDR", "SVC_TEMPORAL_PORT", "SVC_TEMPORAL_UI_PORT"} {
		p, err := devserver.FreePort()
		if err != nil {
			return nil, err
		}
		v := strconv.Itoa(p)
		if k == "SVC_HTTP_ADDR" {
			v = "127.0.0.1:" + v
		}
		environ = append(environ, k+"="+v)
	}
	cfg, err := config.Load(config.Options{Environ: environ, File: os.DevNull})
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := devstack.Start(context.Background(), cfg, logger)
	if err != nil {
		return nil, err
	}
	hooks, err := hookacts.New(s.Config, s.App.Store, s.App.Temporal, logger)
	if err != nil {
		return nil, err
	}
	w := sdkworker.New(s.App.Temporal, baselineQueue, sdkworker.Options{})
	w.RegisterWorkflowWithOptions(emptyWorkflow, workflow.RegisterOptions{Name: "BenchEmpty"})
	if err := w.Start(); err != nil {
		return nil, err
	}
	rcv := newArrivals()
	return &env{dir: dir, stack: s, hooks: hooks, baseline: w, rcv: rcv, url: rcv.srv.URL + "/hook"}, nil
}

// arrivals is a loopback receiver that notes the first attempts of each event (by the
// webhook-id header, which is the event id) as they arrive, then answers by path: /hook at once
// (204), /slow after receiverDelay (204), /fail at once with a 500.
type arrivals struct {
	srv   *httptest.Server
	mu    sync.Mutex
	want  map[string]int // event id -> first attempts still expected
	done  map[string]chan time.Time
	times map[string][]time.Time // event id -> arrival times of its first attempts
}

// receiverDelay is how long the slow receiver takes to answer.
const receiverDelay = 2 * time.Second

func newArrivals() *arrivals {
	a := &arrivals{want: map[string]int{}, done: map[string]chan time.Time{}, times: map[string][]time.Time{}}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		_, _ = io.Copy(io.Discard, r.Body)
		if r.Header.Get(webhook.HeaderAttempt) == "1" {
			a.arrived(r.Header.Get(webhook.HeaderWebhookID), now)
		}
		switch r.URL.Path {
		case "/slow":
			time.Sleep(receiverDelay)
		case "/fail":
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	return a
}

func (a *arrivals) arrived(id string, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n, ok := a.want[id]; ok {
		a.want[id] = n - 1
		a.times[id] = append(a.times[id], now)
		if n == 1 {
			a.done[id] <- now
		}
	}
}

// expect registers an event whose n first attempts are awaited; the channel gets the arrival
// time of the last of them.
func (a *arrivals) expect(eventID string, n int) <-chan time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch := make(chan time.Time, 1)
	a.want[eventID], a.done[eventID] = n, ch
	return ch
}

// arrivalsOf returns the arrival times of the first attempts of an event.
func (a *arrivals) arrivalsOf(eventID string) []time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.times[eventID])
}

// subscribeOrg makes an organisation with n subscriptions of document.failed to the
// receiver's path (/hook, /slow or /fail).
func (e *env) subscribeOrg(b *testing.B, n int, path string) string {
	b.Helper()
	ctx := context.Background()
	org, err := e.stack.App.Store.Orgs.Create(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, _, err := e.stack.App.Store.Webhooks.Create(ctx, e.hooks.Box, org.ID, e.rcv.srv.URL+path, []string{events.DocumentFailed}, true); err != nil {
			b.Fatal(err)
		}
	}
	return org.ID
}

var seq struct {
	sync.Mutex
	n int
}

// publish publishes document.failed for org through the PublishEvent activity's code (event
// written once, a delivery per subscription, their first attempts) and returns a channel that
// gets the arrival time of the last of its first attempts, and the event's id.
func (e *env) publish(b *testing.B, orgID string, wantDeliveries int) (<-chan time.Time, string) {
	b.Helper()
	seq.Lock()
	seq.n++
	key := strconv.Itoa(seq.n)
	seq.Unlock()
	at := time.Now().UTC().Truncate(time.Millisecond)
	id := events.DeriveID(at, "bench", key)
	done := e.rcv.expect(id, wantDeliveries)
	res, err := e.hooks.PublishEvent(context.Background(), workflows.PublishEventInput{
		EventID: id, Event: events.DocumentFailed, OrgID: orgID, OccurredAt: at,
		Data: map[string]any{"documentId": "doc_bench", "errorMessage": "corrupt", "stage": "inspect"},
	})
	if err != nil || len(res.DeliveryIDs) != wantDeliveries {
		b.Fatalf("publish: %d deliveries, %v", len(res.DeliveryIDs), err)
	}
	return done, id
}

// runEmpty starts n empty workflows the way PublishEvent starts deliveries (at most
// hookacts.PublishStartConcurrency at once), waits for all of them, and returns when the last
// one closed (the server's close time, so the client's long poll for the result does not count).
func (e *env) runEmpty(b *testing.B, n int) time.Time {
	b.Helper()
	ctx := context.Background()
	closed := make([]time.Time, n)
	errs := make([]error, n)
	sem := make(chan struct{}, hookacts.PublishStartConcurrency)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		seq.Lock()
		seq.n++
		id := fmt.Sprintf("bench-empty-%d", seq.n)
		seq.Unlock()
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			run, err := e.stack.App.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: baselineQueue}, "BenchEmpty")
			<-sem
			if err == nil {
				err = run.Get(ctx, nil)
			}
			if err != nil {
				errs[i] = err
				return
			}
			d, err := e.stack.App.Temporal.DescribeWorkflowExecution(ctx, id, run.GetRunID())
			if err != nil {
				errs[i] = err
				return
			}
			closed[i] = d.GetWorkflowExecutionInfo().GetCloseTime().AsTime()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	return slices.MaxFunc(closed, func(a, b time.Time) int { return a.Compare(b) })
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s)-1) * p)
	return s[i]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkWebhookLatency measures, one event at a time to one subscription, the time from
// publishing an event to its first attempt reaching a loopback receiver, against the time from
// starting one empty workflow on the same Temporal server to its completion.
func BenchmarkWebhookLatency(b *testing.B) {
	e := stack(b)
	org := e.subscribeOrg(b, 1, "/hook")
	e.publish(b, org, 1) // warm up: connections, caches, first workflow tasks
	e.runEmpty(b, 1)
	b.ResetTimer()
	lat := make([]time.Duration, 0, b.N)
	base := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		done, _ := e.publish(b, org, 1)
		select {
		case at := <-done:
			lat = append(lat, at.Sub(start))
		case <-time.After(30 * time.Second):
			b.Fatal("first attempt did not arrive within 30s")
		}
		start = time.Now()
		base = append(base, e.runEmpty(b, 1).Sub(start))
	}
	b.StopTimer()
	p50, p99, b50, b99 := percentile(lat, .5), percentile(lat, .99), percentile(base, .5), percentile(base, .99)
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(b50), "baseline-p50-ms")
	b.ReportMetric(ms(b99), "baseline-p99-ms")
	b.ReportMetric(float64(p50)/float64(b50), "p50-ratio")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkWebhookFanOut measures sustained deliveries per second for one event fanned out to
// fanOut subscriptions (publish until every first attempt arrived), against the same number of
// empty workflows started the same way on the same server (until the last completed).
func BenchmarkWebhookFanOut(b *testing.B) {
	e := stack(b)
	org := e.subscribeOrg(b, fanOut, "/hook")
	e.publish(b, org, fanOut) // warm up
	e.runEmpty(b, fanOut)
	b.ResetTimer()
	var ours, base, publishing time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		done, _ := e.publish(b, org, fanOut)
		publishing += time.Since(start)
		select {
		case at := <-done:
			ours += at.Sub(start)
		case <-time.After(2 * time.Minute):
			b.Fatal("not every first attempt arrived within 2 minutes")
		}
		start = time.Now()
		base += e.runEmpty(b, fanOut).Sub(start)
	}
	b.StopTimer()
	n := float64(b.N * fanOut)
	rate, baseRate := n/ours.Seconds(), n/base.Seconds()
	b.ReportMetric(rate, "deliveries/s")
	b.ReportMetric(baseRate, "baseline-workflows/s")
	b.ReportMetric(rate/baseRate, "ratio")
	b.ReportMetric(ms(publishing)/float64(b.N), "publish-ms/event")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkWebhookReceivers measures one event fanned out to 1, 10 and 100 subscriptions whose
// receiver answers at once, after receiverDelay, or with a 500: first attempts per second (from
// the publish until the last first attempt arrived), the publish's own time, and publish → first
// attempt at p50 and p99 over every delivery, against the same number of empty workflows started
// the same way on the same server (until the last completed).
func BenchmarkWebhookReceivers(b *testing.B) {
	for _, rcv := range []struct{ name, path string }{{"instant", "/hook"}, {"slow", "/slow"}, {"failing", "/fail"}} {
		for _, n := range []int{1, 10, 100} {
			b.Run(fmt.Sprintf("%s/subs=%d", rcv.name, n), func(b *testing.B) {
				e := stack(b)
				org := e.subscribeOrg(b, n, rcv.path)
				e.runEmpty(b, n) // warm up
				b.ResetTimer()
				var ours, base, publishing time.Duration
				var lat []time.Duration
				for i := 0; i < b.N; i++ {
					start := time.Now()
					done, id := e.publish(b, org, n)
					publishing += time.Since(start)
					select {
					case at := <-done:
						ours += at.Sub(start)
					case <-time.After(2 * time.Minute):
						b.Fatal("not every first attempt arrived within 2 minutes")
					}
					for _, at := range e.rcv.arrivalsOf(id) {
						lat = append(lat, at.Sub(start))
					}
					start = time.Now()
					base += e.runEmpty(b, n).Sub(start)
				}
				b.StopTimer()
				total := float64(b.N * n)
				rate, baseRate := total/ours.Seconds(), total/base.Seconds()
				b.ReportMetric(rate, "deliveries/s")
				b.ReportMetric(baseRate, "baseline-workflows/s")
				b.ReportMetric(rate/baseRate, "ratio")
				b.ReportMetric(ms(publishing)/float64(b.N), "publish-ms/event")
				b.ReportMetric(ms(percentile(lat, .5)), "first-p50-ms")
				b.ReportMetric(ms(percentile(lat, .99)), "first-p99-ms")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
