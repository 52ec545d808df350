package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svcplatform/svc/auth"
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
