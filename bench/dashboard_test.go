package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ids"
	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/store"
)

// dashboardExecutions is how many executions the dashboard benchmark's organisation holds.
const dashboardExecutions = 10_000

// dashEnv is the dashboard benchmark's organisation: 10,000 executions and a signed-in session.
type dashEnv struct {
	*env
	session *http.Cookie
	someID  string
}

var dashboardOrg = perRun(newDashEnv)

func newDashEnv(e *env) (*dashEnv, error) {
	ctx := context.Background()
	st := e.stack.App.Store
	const password = "bench dashboard password"
	boot, err := st.Orgs.Bootstrap(ctx, store.BootstrapInput{OrgName: "bench dashboard", Email: "bench-dash@example.com",
		UserName: "bench", Role: auth.RoleAdmin, Password: password, Environment: e.stack.Config.Environment, Now: time.Now()})
	if err != nil {
		return nil, err
	}
	for bucket := range api.DefaultRateLimits() {
		if err := st.RateLimits.SetOverride(ctx, store.RateLimitOverride{OrgID: boot.Org.ID, Bucket: bucket, MaxRequests: 1 << 30, WindowSeconds: 60}); err != nil {
			return nil, err
		}
	}
	// The executions are written as rows (a run each would take the worker minutes): the
	// dashboard reads rows, whatever made them.
	statuses := orch.Executions.Names()
	rows := make([]store.Execution, 0, dashboardExecutions)
	start := time.Now().Add(-dashboardExecutions * time.Second)
	for i := range dashboardExecutions {
		at := start.Add(time.Duration(i) * time.Second).UTC()
		rows = append(rows, store.Execution{ID: ids.NewAt(ids.Execution, at), OrgID: boot.Org.ID, WorkflowID: ids.NewAt(ids.Workflow, start),
			WorkflowSlug: "bench", WorkflowVersion: 1, Status: orch.ExecutionStatus(statuses[i%len(statuses)]),
			Inputs: map[string]any{"n": i}, StartedBy: boot.User.ID, CreatedAt: at, UpdatedAt: at})
	}
	if err := st.DB.WithContext(ctx).CreateInBatches(rows, 500).Error; err != nil {
		return nil, err
	}
	body, _ := json.Marshal(map[string]string{"email": "bench-dash@example.com", "password": password})
	res, err := http.Post(e.stack.BaseURL+"/api/auth/login", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	for _, c := range res.Cookies() {
		if c.Name == api.SessionCookie {
			return &dashEnv{env: e, session: c, someID: rows[len(rows)/2].ID}, nil
		}
	}
	return nil, fmt.Errorf("login = %d: no session cookie", res.StatusCode)
}

// BenchmarkDashboardExecutions times the dashboard's executions pages (the list, the list
// filtered by status, one execution) of an organisation with 10,000 executions, and in the
// same run the API's JSON answers the pages are made from (the baseline): p50 and p99 of each
// and the ratio of the p99s. The aim is a p99 under 50 ms on svc dev.
//
//	go test ./bench/ -run '^$' -bench DashboardExecutions -benchtime 300x
func BenchmarkDashboardExecutions(b *testing.B) {
	d := dashboardOrg(b)
	pages := []struct{ dashboard, api string }{
		{"/dashboard/executions", "/api/executions?limit=50&summary=true"},
		{"/dashboard/executions?status=failed", "/api/executions?limit=50&summary=true&status=failed"},
		{"/dashboard/executions/" + d.someID, "/api/executions/" + d.someID},
	}
	get := func(path string) time.Duration {
		req, _ := http.NewRequest("GET", d.stack.BaseURL+path, nil)
		req.AddCookie(&http.Cookie{Name: d.session.Name, Value: d.session.Value})
		t0 := time.Now()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		el := time.Since(t0)
		if res.StatusCode != 200 {
			b.Fatalf("GET %s = %d", path, res.StatusCode)
		}
		return el
	}
	for _, p := range pages { // warm up: connections, caches, templates
		get(p.dashboard)
		get(p.api)
	}
	var dash, base []time.Duration
	b.ResetTimer()
	for i := range b.N {
		p := pages[i%len(pages)]
		dash = append(dash, get(p.dashboard))
		base = append(base, get(p.api))
	}
	b.StopTimer()
	dp99, ap99 := percentile(dash, 0.99), percentile(base, 0.99)
	b.ReportMetric(ms(percentile(dash, 0.5)), "dashboard-p50-ms")
	b.ReportMetric(ms(dp99), "dashboard-p99-ms")
	b.ReportMetric(ms(percentile(base, 0.5)), "api-p50-ms")
	b.ReportMetric(ms(ap99), "api-p99-ms")
	b.ReportMetric(float64(dp99)/float64(ap99), "p99-ratio")
	b.ReportMetric(0, "ns/op")
}
