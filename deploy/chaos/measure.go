package chaos

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svcplatform/svc/deploy/cluster"
)

// Throughput is what Measure found.
type Throughput struct {
	Executions                int
	Elapsed                   time.Duration
	StartsPerSec              float64
	CompletedPerSec           float64
	DeliveriesPerSec          float64
	DeliveriesReceived        int
	StartElapsed, LastArrival time.Duration
}

func (t Throughput) String() string {
	return fmt.Sprintf("%d executions: starts %.1f/s, completed %.1f/s, webhook deliveries %.1f/s (%d received in %s)",
		t.Executions, t.StartsPerSec, t.CompletedPerSec, t.DeliveriesPerSec, t.DeliveriesReceived, t.LastArrival.Round(time.Millisecond))
}

// Measure starts n executions of a two-node workflow through the APIs at bases, from
// clients concurrent clients, and times the starts, their completion events and every
// delivery at the receiver (subscribed to started and completed: two deliveries each).
func Measure(ctx context.Context, bases []string, key string, recv *cluster.Receiver, n, clients int) (Throughput, error) {
	stats := &Stats{}
	c := &client{bases: bases, key: key, http: &http.Client{Timeout: 30 * time.Second}, stats: stats}
	def := map[string]any{"nodes": []any{
		map[string]any{"id": "a", "kind": "transform", "config": map[string]any{"output": map[string]any{"n": "{{ inputs.n }}"}}, "next": "b"},
		map[string]any{"id": "b", "kind": "transform", "config": map[string]any{"output": map[string]any{"done": true}}},
	}}
	if a, err := c.do("POST", "/api/workflows", jsonBody(map[string]any{"slug": "scale", "name": "scale", "definition": def, "externalId": "setup-scale"}), time.Minute); err != nil || a.Status >= 300 {
		return Throughput{}, fmt.Errorf("create workflow: %d %s %v", a.Status, a.Raw, err)
	}
	events := []string{"workflow.execution.started", "workflow.execution.completed"}
	if a, err := c.do("POST", "/api/webhooks", jsonBody(map[string]any{"url": recv.URL + "/hook", "events": events}), time.Minute); err != nil || a.Status >= 300 {
		return Throughput{}, fmt.Errorf("subscribe: %d %s %v", a.Status, a.Raw, err)
	}
	before := len(recv.Counts())
	t0 := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				a, err := c.do("POST", "/api/workflows/scale/executions", jsonBody(map[string]any{"inputs": map[string]any{"n": i}, "externalId": nextID("scale")}), time.Minute)
				if err != nil || a.Status >= 300 {
					mu.Lock()
					firstErr = fmt.Errorf("start: %d %s %v", a.Status, a.Raw, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return Throughput{}, firstErr
	}
	started := time.Since(t0)
	want := before + 2*n
	deadline := time.Now().Add(10 * time.Minute)
	var completedAt time.Duration
	for {
		got := len(recv.Counts())
		if completedAt == 0 && recv.CountName("workflow.execution.completed") >= n {
			completedAt = time.Since(t0)
		}
		if got >= want {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return Throughput{}, fmt.Errorf("only %d of %d events arrived", got-before, 2*n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	last := time.Since(t0)
	if completedAt == 0 {
		completedAt = last
	}
	return Throughput{
		Executions: n, StartElapsed: started, LastArrival: last, DeliveriesReceived: 2 * n,
		StartsPerSec:     float64(n) / started.Seconds(),
		CompletedPerSec:  float64(n) / completedAt.Seconds(),
		DeliveriesPerSec: float64(2*n) / last.Seconds(),
	}, nil
}
