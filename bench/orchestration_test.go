package bench

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	orchwf "github.com/svcplatform/svc/workflows/orchestration"
)

// startConcurrency is how many clients start executions at once in BenchmarkExecutionStarts,
// in rounds of startRound starts per path.
const (
	startConcurrency = 8
	startRound       = 16
)

// parkedDefinition waits a day on its only node: its runs cost a start and three bookkeeping
// activities, then stay parked on a timer, so starting many loads the worker little.
const parkedDefinition = `{"nodes": [{"id": "park", "kind": "delay", "config": {"duration": "24h"}}]}`

// threeNodeDefinition runs three nodes: an http call, a condition on its answer, a transform.
func threeNodeDefinition(scoring string) string {
	return `{"nodes": [
	 {"id": "score", "kind": "http", "config": {"method": "POST", "url": "` + scoring + `/score/{{ inputs.customerId }}",
	  "body": {"amount": "{{ inputs.amount }}"}}, "next": "check"},
	 {"id": "check", "kind": "condition", "config": {"expression": "steps.score.output.body.score > 0.5"},
	  "next": {"then": "accept", "else": "decline"}},
	 {"id": "accept", "kind": "transform", "config": {"output": {"accepted": true, "score": "{{ steps.score.output.body.score }}"}}},
	 {"id": "decline", "kind": "transform", "config": {"output": {"accepted": false}}}]}`
}

// orchEnv is the orchestration benchmarks' organisation on the shared stack: an admin key with
// rate limits out of the way, the two workflows, a loopback scoring service for the http node
// and a receiver of workflow.execution.completed.
type orchEnv struct {
	*env
	orgID, key        string
	http              *http.Client
	parked, threeNode *store.Workflow
	completed         *finals
	started           atomic.Int64
}

// orchestration is the orchestration benchmarks' organisation, made once per run on the shared stack.
var orchestration = perRun(newOrchEnv)

func newOrchEnv(e *env) (*orchEnv, error) {
	ctx := context.Background()
	st := e.stack.App.Store
	boot, err := newBenchOrg(e, "bench orchestration", "bench-orch@example.com")
	if err != nil {
		return nil, err
	}
	o := &orchEnv{env: e, orgID: boot.Org.ID, key: boot.Secret, completed: newFinals(),
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	scoring := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"score": 0.9}`))
	}))
	if o.parked, _, err = st.Orchestration.CreateWorkflow(ctx, o.orgID, "parked", "Parked", parkedDefinition, boot.User.ID); err != nil {
		return nil, err
	}
	if o.threeNode, _, err = st.Orchestration.CreateWorkflow(ctx, o.orgID, "three-nodes", "Three nodes", threeNodeDefinition(scoring.URL), boot.User.ID); err != nil {
		return nil, err
	}
	if _, _, err := st.Webhooks.Create(ctx, e.hooks.Box, o.orgID, o.completed.srv.URL+"/completed", []string{events.WorkflowExecutionCompleted}, true); err != nil {
		return nil, err
	}
	return o, nil
}

// startAPI starts an execution of w through POST /api/workflows/{id}/executions.
func (o *orchEnv) startAPI(w *store.Workflow) (string, error) {
	body := []byte(`{"inputs": {"customerId": "cus_bench", "amount": 250}}`)
	id, err := postAccepted(o.http, o.stack.BaseURL+"/api/workflows/"+w.ID+"/executions", o.key, "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	o.started.Add(1)
	return id, nil
}

// startSDK starts the same Execution workflow with the Temporal SDK directly, as the API does
// but without HTTP, authentication, rate limiting, the execution row and the audit record.
func (o *orchEnv) startSDK(ctx context.Context, w *store.Workflow) (client.WorkflowRun, error) {
	in := orchwf.ExecutionInput{ExecutionID: ids.New(ids.Execution), OrgID: o.orgID, WorkflowID: w.ID, WorkflowSlug: w.Slug,
		WorkflowVersion: 1, Inputs: map[string]any{"customerId": "cus_bench", "amount": 250}}
	run, err := o.stack.App.Temporal.ExecuteWorkflow(ctx, orchwf.ExecutionStartOptions(in), orchwf.ExecutionWorkflowName, in)
	if err == nil {
		o.started.Add(1)
	}
	return run, err
}

// parallel runs fn n times on k goroutines and returns the wall time and each call's duration.
func parallel(n, k int, fn func() error) (time.Duration, []time.Duration, error) {
	var next atomic.Int64
	durs := make([]time.Duration, n)
	errs := make([]error, k)
	var wg sync.WaitGroup
	start := time.Now()
	for g := 0; g < k; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				t := time.Now()
				if err := fn(); err != nil {
					errs[g] = err
					return
				}
				durs[i] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	return time.Since(start), durs, errors.Join(errs...)
}

// settle waits until every run started so far has recorded its parked step, so the next
// phase does not share the worker with the previous one's bookkeeping.
func (o *orchEnv) settle(b *testing.B) {
	b.Helper()
	want := o.started.Load()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var n int64
		if err := o.stack.App.Store.DB.Model(&store.Step{}).Where("org_id = ? AND node_id = ?", o.orgID, "park").Count(&n).Error; err != nil {
			b.Fatal(err)
		}
		if n >= want {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d parked runs recorded their step", n, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// BenchmarkExecutionStarts measures execution starts per second through the API (POST
// /api/workflows/{id}/executions, startConcurrency clients) against starts of the same
// Execution workflow with the Temporal SDK directly, on the same embedded server in the same
// run: the difference is the API's cost (HTTP, key, rate limit, execution row, audit record).
// The two alternate in rounds of startRound, each on an idle worker, so load from elsewhere on
// the machine falls on both alike.
func BenchmarkExecutionStarts(b *testing.B) {
	o := orchestration(b)
	ctx := context.Background()
	viaAPI := func() error { _, err := o.startAPI(o.parked); return err }
	viaSDK := func() error { _, err := o.startSDK(ctx, o.parked); return err }
	type path struct {
		start func() error
		wall  time.Duration
		durs  []time.Duration
	}
	paths := []*path{{start: viaAPI}, {start: viaSDK}}
	for _, p := range paths { // warm up
		if _, _, err := parallel(startConcurrency, startConcurrency, p.start); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for done, round := 0, 0; done < b.N; round++ {
		n := min(startRound, b.N-done)
		for i := range paths {
			p := paths[(i+round)%len(paths)]
			b.StopTimer()
			o.settle(b)
			b.StartTimer()
			wall, durs, err := parallel(n, startConcurrency, p.start)
			if err != nil {
				b.Fatal(err)
			}
			p.wall, p.durs = p.wall+wall, append(p.durs, durs...)
		}
		done += n
	}
	b.StopTimer()
	o.settle(b)
	apiRate, sdkRate := float64(b.N)/paths[0].wall.Seconds(), float64(b.N)/paths[1].wall.Seconds()
	b.ReportMetric(apiRate, "api-starts/s")
	b.ReportMetric(sdkRate, "sdk-starts/s")
	b.ReportMetric(apiRate/sdkRate, "ratio")
	b.ReportMetric(ms(percentile(paths[0].durs, .5)), "api-p50-ms")
	b.ReportMetric(ms(percentile(paths[1].durs, .5)), "sdk-p50-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkExecutionLatency measures, one execution at a time, the time from the start request
// (POST /api/workflows/{id}/executions) of a three-node execution (http, condition, transform)
// to its workflow.execution.completed event reaching a loopback receiver, against the time from
// starting the same Execution workflow with the SDK to the run's close on the same server (no
// API and no webhook delivery: what Temporal, the worker and the activities cost).
func BenchmarkExecutionLatency(b *testing.B) {
	o := orchestration(b)
	ctx := context.Background()
	var ph []phases
	once := func() (time.Duration, time.Duration) {
		start := time.Now()
		id, err := o.startAPI(o.threeNode)
		if err != nil {
			b.Fatal(err)
		}
		var lat time.Duration
		select {
		case end := <-o.completed.ch(id):
			lat = end.at.Sub(start)
		case <-time.After(30 * time.Second):
			b.Fatalf("no completed event for %s within 30s", id)
		}
		p, err := historyPhases(ctx, o.stack.App.Temporal, id, start)
		if err != nil {
			b.Fatal(err)
		}
		ph = append(ph, p)
		start = time.Now()
		run, err := o.startSDK(ctx, o.threeNode)
		if err == nil {
			err = run.Get(ctx, nil)
		}
		if err != nil {
			b.Fatal(err)
		}
		// The server's close time: the client's long poll for the result does not count.
		d, err := o.stack.App.Temporal.DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
		if err != nil {
			b.Fatal(err)
		}
		return lat, d.GetWorkflowExecutionInfo().GetCloseTime().AsTime().Sub(start)
	}
	once() // warm up
	ph = nil
	b.ResetTimer()
	lat := make([]time.Duration, 0, b.N)
	base := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		l, s := once()
		lat, base = append(lat, l), append(base, s)
	}
	b.StopTimer()
	b.ReportMetric(ms(percentile(lat, .5)), "p50-ms")
	b.ReportMetric(ms(percentile(lat, .99)), "p99-ms")
	b.ReportMetric(ms(percentile(base, .5)), "sdk-p50-ms")
	b.ReportMetric(ms(percentile(base, .99)), "sdk-p99-ms")
	// Where the time goes, from the API runs' histories (medians of each phase; the phases do
	// not add up exactly, since a median of sums is not a sum of medians).
	phase := func(f func(phases) time.Duration) float64 {
		ds := make([]time.Duration, len(ph))
		for i, p := range ph {
			ds[i] = f(p)
		}
		return ms(percentile(ds, .5))
	}
	b.ReportMetric(phase(func(p phases) time.Duration { return p.api }), "api-ms")
	b.ReportMetric(phase(func(p phases) time.Duration { return p.taskQueue }), "wft-queue-ms")
	b.ReportMetric(phase(func(p phases) time.Duration { return p.taskRun }), "wft-run-ms")
	b.ReportMetric(phase(func(p phases) time.Duration { return p.activityQueue }), "act-queue-ms")
	b.ReportMetric(phase(func(p phases) time.Duration { return p.activityRun }), "act-run-ms")
	b.ReportMetric(phase(func(p phases) time.Duration { return time.Duration(p.tasks) * time.Millisecond }), "wfts")
	b.ReportMetric(phase(func(p phases) time.Duration { return time.Duration(p.activities) * time.Millisecond }), "activities")
	b.ReportMetric(0, "ns/op")
}
