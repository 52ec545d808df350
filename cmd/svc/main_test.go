package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/store"
)

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestBootstrapPrintsCredentials(t *testing.T) {
	t.Setenv("SVC_CONFIG_UNUSED", "")
	dir := t.TempDir()
	out, err := run(t, "bootstrap", "--org", "Acme", "--env", "live", "--scopes", "read,webhooks:manage", "--user", "ops@acme.test", "--data-dir", dir, "--config", filepath.Join("testdata", "empty.yaml"))
	if err != nil {
		t.Fatalf("bootstrap: %v\n%s", err, out)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"orgId", "userId", "apiKeyId", "apiKey", "baseUrl"} {
		if got[k] == "" {
			t.Errorf("missing %s in %s", k, out)
		}
	}
	if env, err := auth.ParseKey(got["apiKey"]); err != nil || env != "live" {
		t.Fatalf("key %q: env %q err %v", got["apiKey"], env, err)
	}

	// A second user and key in the same organisation.
	out2, err := run(t, "bootstrap", "--org-id", got["orgId"], "--user", "rev@acme.test", "--role", "reviewer", "--data-dir", dir, "--config", filepath.Join("testdata", "empty.yaml"))
	if err != nil {
		t.Fatalf("bootstrap --org-id: %v\n%s", err, out2)
	}
	var got2 map[string]string
	_ = json.Unmarshal([]byte(out2), &got2)
	if got2["orgId"] != got["orgId"] || got2["userId"] == got["userId"] || got2["apiKey"] == got["apiKey"] {
		t.Fatalf("second bootstrap = %s", out2)
	}
}

func TestBootstrapRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join("testdata", "empty.yaml")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bootstrap", "--data-dir", dir}, "--org"},
		{[]string{"bootstrap", "--org", "A", "--org-id", "org_x", "--data-dir", dir}, "exactly one"},
		{[]string{"bootstrap", "--org", "A", "--env", "prod", "--data-dir", dir}, "sandbox or live"},
		{[]string{"bootstrap", "--org", "A", "--scopes", "read,everything", "--data-dir", dir}, "everything"},
		{[]string{"bootstrap", "--org", "A", "--user", "not-an-email", "--data-dir", dir}, "not-an-email"},
		{[]string{"bootstrap", "--org", "A", "--role", "overlord", "--data-dir", dir}, "overlord"},
		{[]string{"bootstrap", "--org-id", "org_missing", "--user", "a@b.test", "--data-dir", dir}, "org_missing"},
		{[]string{"bootstrap", "--org", "A", "--unknown-flag"}, "unknown flag"},
		{[]string{"bootstrap", "--org", "A", "--capabilities", "documents,payroll", "--data-dir", dir}, "payroll"},
		{[]string{"bootstrap", "--org-id", "org_x", "--user", "a@b.test", "--capabilities", "documents", "--data-dir", dir}, "capabilities"},
	}
	for _, tc := range cases {
		out, err := run(t, append(tc.args, "--config", cfg)...)
		if err == nil {
			t.Errorf("%v: no error\n%s", tc.args, out)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %q does not mention %q", tc.args, err, tc.want)
		}
	}
}

func TestVersionAndHelp(t *testing.T) {
	out, err := run(t, "version")
	if err != nil || !strings.HasPrefix(out, "svc ") {
		t.Fatalf("version = %q, %v", out, err)
	}
	for _, sub := range []string{"dev", "api", "worker", "migrate", "bootstrap", "version"} {
		out, err := run(t, sub, "--help")
		if err != nil || !strings.Contains(out, "Usage:") {
			t.Errorf("%s --help = %q, %v", sub, out, err)
		}
	}
}

func TestAPIAndWorkerNeedTemporalAddress(t *testing.T) {
	cfg := filepath.Join("testdata", "empty.yaml")
	for _, sub := range []string{"api", "worker"} {
		_, err := run(t, sub, "--config", cfg)
		if err == nil || !strings.Contains(err.Error(), "temporal.address") {
			t.Errorf("%s without SVC_TEMPORAL_ADDRESS: err = %v", sub, err)
		}
	}
}

// TestConfigFlagsSetTheirKeys: a flag given on the command line sets its key; one left at its
// default does not override the environment.
func TestConfigFlagsSetTheirKeys(t *testing.T) {
	t.Setenv("SVC_TEMPORAL_PORT", "9999")
	cmd := newDev()
	cmd.Flags().String("config", filepath.Join("testdata", "empty.yaml"), "")
	if err := cmd.Flags().Parse([]string{"--http-addr", "127.0.0.1:9191", "--data-dir", "/tmp/svc-flag-test"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HTTP.Addr != "127.0.0.1:9191" || cfg.DataDir != "/tmp/svc-flag-test" {
		t.Fatalf("flags not applied: addr %s, data dir %s", cfg.HTTP.Addr, cfg.DataDir)
	}
	if cfg.Temporal.Port != 9999 {
		t.Fatalf("an unset --temporal-port overrode SVC_TEMPORAL_PORT: %d", cfg.Temporal.Port)
	}
}

// TestBootstrapSeveralOrganisationsWithoutUser: `svc bootstrap --org B` without --user works on
// a database where other organisations were bootstrapped the same way, or took admin@svc.local.
func TestBootstrapSeveralOrganisationsWithoutUser(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join("testdata", "empty.yaml")
	if out, err := run(t, "bootstrap", "--org", "Dev", "--user", "admin@svc.local", "--data-dir", dir, "--config", cfg); err != nil {
		t.Fatalf("bootstrap Dev: %v\n%s", err, out)
	}
	emails := map[string]bool{}
	for _, org := range []string{"A", "B"} {
		out, err := run(t, "bootstrap", "--org", org, "--data-dir", dir, "--config", cfg)
		if err != nil {
			t.Fatalf("bootstrap --org %s without --user: %v\n%s", org, err, out)
		}
		var got map[string]string
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out)
		}
		if got["userId"] == "" || got["userEmail"] != "admin+"+got["orgId"]+"@svc.local" || emails[got["userEmail"]] {
			t.Fatalf("bootstrap --org %s = %s", org, out)
		}
		emails[got["userEmail"]] = true
	}
}

// TestBootstrapCapabilities: --capabilities gives a new organisation exactly those products;
// without it an organisation has every product.
func TestBootstrapCapabilities(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join("testdata", "empty.yaml")
	orgOf := func(args ...string) string {
		out, err := run(t, append(append([]string{"bootstrap"}, args...), "--data-dir", dir, "--config", cfg)...)
		if err != nil {
			t.Fatalf("bootstrap %v: %v\n%s", args, err, out)
		}
		var got map[string]string
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out)
		}
		return got["orgId"]
	}
	limited := orgOf("--org", "Limited", "--capabilities", "documents, screening")
	full := orgOf("--org", "Full")
	st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(dir, "svc.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for org, want := range map[string]string{limited: "documents,screening", full: "*"} {
		o, err := st.Orgs.Get(context.Background(), org)
		if err != nil || o.Capabilities != want {
			t.Errorf("%s: capabilities %q (%v), want %q", org, o.Capabilities, err, want)
		}
	}
}
