package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/devstack"
)

// TestDevStackRunsAndSurvivesRestart is the foundation's end-to-end test: boot the svc dev stack,
// check health, run the trivial workflow through the API, stop, boot again on the same data
// directory, and find the workflow and its records still there.
func TestDevStackRunsAndSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	s := boot(t, dir, bootOptions{})

	// Dev credentials: written once, mode 0600, with the documented fields.
	credPath := filepath.Join(dir, devstack.CredentialsFile)
	fi, err := os.Stat(credPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s mode = %v, want 0600", credPath, fi.Mode().Perm())
	}
	var creds map[string]string
	b, _ := os.ReadFile(credPath)
	if err := json.Unmarshal(b, &creds); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"orgId", "userId", "apiKeyId", "apiKey", "baseUrl"} {
		if creds[k] == "" {
			t.Fatalf("dev credentials lack %s: %s", k, b)
		}
	}
	if !s.CreatedCredentials {
		t.Fatal("first start of an empty data directory must create credentials")
	}

	anon := client{t: t, base: s.BaseURL}
	if r := anon.do("GET", "/healthz", nil); r.Status != 200 {
		t.Fatalf("healthz = %d %s", r.Status, r.Raw)
	}
	if r := anon.do("GET", "/readyz", nil); r.Status != 200 {
		t.Fatalf("readyz = %d %s", r.Status, r.Raw)
	}
	if r := anon.do("GET", "/api/pings/exe_x", nil); r.Status != 401 || r.Body["error"] != "missing or invalid Bearer" {
		t.Fatalf("unauthenticated = %d %s", r.Status, r.Raw)
	}
	// boot gives the UI a port, so svc dev must serve it: no UI is a failure, not a skip.
	if s.UIURL == "" {
		t.Fatal("the dev stack runs no Temporal UI")
	}
	eventually(t, 30*time.Second, "the Temporal UI to answer", func() bool {
		res, err := http.Get(s.UIURL + "/")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	})

	c := client{t: t, base: s.BaseURL, key: creds["apiKey"]}
	r := c.do("POST", "/api/pings", map[string]any{"message": "hello temporal"})
	if r.Status != 202 {
		t.Fatalf("POST /api/pings = %d %s", r.Status, r.Raw)
	}
	id := str(r.data(t)["id"])
	eventually(t, 30*time.Second, "the ping workflow to complete", func() bool {
		g := c.do("GET", "/api/pings/"+id, nil)
		return g.Status == 200 && g.data(t)["status"] == "succeeded"
	})
	g := c.do("GET", "/api/pings/"+id, nil)
	if g.data(t)["echo"] != "hello temporal" {
		t.Fatalf("echo = %v", g.data(t)["echo"])
	}
	// The run is in Temporal, completed, findable by its search attributes.
	if err := s.App.Temporal.GetWorkflow(context.Background(), id, "").Get(context.Background(), nil); err != nil {
		t.Fatalf("workflow %s: %v", id, err)
	}
	desc, err := s.App.Temporal.DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil {
		t.Fatalf("describe %s: %v", id, err)
	}
	if got := desc.GetWorkflowExecutionInfo().GetStatus().String(); got != "Completed" {
		t.Fatalf("temporal status = %s", got)
	}
	if _, ok := desc.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields()["OrgId"]; !ok {
		t.Fatalf("run lacks the OrgId search attribute: %v", desc.GetWorkflowExecutionInfo().GetSearchAttributes())
	}

	if err := s.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}

	// Boot again on the same directory: same credentials, the record and the run are still there.
	s2 := boot(t, dir, bootOptions{})
	if s2.CreatedCredentials || s2.Credentials.APIKey != creds["apiKey"] {
		t.Fatal("a restart must keep the dev credentials")
	}
	c2 := client{t: t, base: s2.BaseURL, key: creds["apiKey"]}
	g2 := c2.do("GET", "/api/pings/"+id, nil)
	if g2.Status != 200 || g2.data(t)["status"] != "succeeded" || g2.data(t)["echo"] != "hello temporal" {
		t.Fatalf("after restart GET = %d %s", g2.Status, g2.Raw)
	}
	desc2, err := s2.App.Temporal.DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil {
		t.Fatalf("after restart, describe %s: %v", id, err)
	}
	if desc2.GetWorkflowExecutionInfo().GetStatus().String() != "Completed" {
		t.Fatalf("after restart temporal status = %s", desc2.GetWorkflowExecutionInfo().GetStatus())
	}
	// /metrics exposes the API's and the Temporal SDK's metrics from one registry.
	m, err := http.Get(s2.BaseURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := io.ReadAll(m.Body)
	m.Body.Close()
	for _, want := range []string{"svc_http_requests_total", "temporal_"} {
		if !strings.Contains(string(mb), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	// And the restarted worker still runs new work.
	r3 := c2.do("POST", "/api/pings", map[string]any{"message": "again"})
	if r3.Status != 202 {
		t.Fatalf("POST after restart = %d %s", r3.Status, r3.Raw)
	}
	id3 := str(r3.data(t)["id"])
	eventually(t, 30*time.Second, "the second ping to complete", func() bool {
		g := c2.do("GET", "/api/pings/"+id3, nil)
		return g.Status == 200 && g.data(t)["status"] == "succeeded"
	})
}
