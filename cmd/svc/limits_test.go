package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/svcplatform/svc/store"
)

// TestLimitsArrangedForAnOrganisation: svc limits set gives an organisation its own evaluate
// limit and daily AI token allowance where the API and the worker read them (the store), with
// audit entries; show prints them beside every other bucket's default; reset returns to the
// defaults. Bad arguments are refused and change nothing.
func TestLimitsArrangedForAnOrganisation(t *testing.T) {
	t.Setenv("SVC_DATABASE_URL", "")
	dir := t.TempDir()
	cfg := filepath.Join("testdata", "empty.yaml")
	out, err := run(t, "bootstrap", "--org", "Acme", "--data-dir", dir, "--config", cfg)
	if err != nil {
		t.Fatalf("bootstrap: %v\n%s", err, out)
	}
	var boot map[string]string
	if err := json.Unmarshal([]byte(out), &boot); err != nil {
		t.Fatal(err)
	}
	org := boot["orgId"]
	limits := func(args ...string) limitsOutput {
		t.Helper()
		out, err := run(t, append(append([]string{"limits"}, args...), "--org-id", org, "--data-dir", dir, "--config", cfg)...)
		if err != nil {
			t.Fatalf("svc limits %v: %v\n%s", args, err, out)
		}
		var got limitsOutput
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out)
		}
		return got
	}
	bucket := func(o limitsOutput, name string) bucketLimit {
		for _, b := range o.RateLimits {
			if b.Bucket == name {
				return b
			}
		}
		t.Fatalf("no bucket %s in %+v", name, o)
		return bucketLimit{}
	}

	got := limits("show")
	if b := bucket(got, "evaluate"); b.Limit != 1000 || b.Window != "1m0s" || b.Own {
		t.Errorf("default evaluate = %+v", b)
	}
	if got.AIDailyTokens != (tokenLimit{Tokens: 0, Own: false}) || len(got.RateLimits) != 7 {
		t.Errorf("defaults = %+v", got)
	}

	got = limits("set", "--bucket", "evaluate", "--limit", "20000", "--window", "1m", "--ai-daily-tokens", "5000")
	if b := bucket(got, "evaluate"); b != (bucketLimit{Bucket: "evaluate", Limit: 20000, Window: "1m0s", Own: true}) {
		t.Errorf("evaluate after set = %+v", b)
	}
	if b := bucket(got, "screening"); b.Own || b.Limit != 60 {
		t.Errorf("screening changed with evaluate: %+v", b)
	}
	if got.AIDailyTokens != (tokenLimit{Tokens: 5000, Own: true}) {
		t.Errorf("AI allowance after set = %+v", got.AIDailyTokens)
	}

	st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(dir, "svc.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	own, err := st.RateLimits.Overrides(context.Background(), org)
	if err != nil || len(own) != 1 || own[0].Bucket != "evaluate" || own[0].MaxRequests != 20000 || own[0].WindowSeconds != 60 {
		t.Errorf("overrides the API reads = %+v, %v", own, err)
	}
	if n, set, err := st.Automation.DailyTokens(context.Background(), org); err != nil || !set || n != 5000 {
		t.Errorf("allowance the worker reads = %d, %v, %v", n, set, err)
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"set", "--bucket", "everything", "--limit", "5"}, "not a rate-limit bucket"},
		{[]string{"set", "--bucket", "evaluate", "--limit", "0"}, "--limit"},
		{[]string{"set", "--bucket", "evaluate", "--limit", "5", "--window", "1500ms"}, "whole number of seconds"},
		{[]string{"set", "--ai-daily-tokens", "-1"}, "negative"},
		{[]string{"set"}, "nothing to set"},
		{[]string{"reset"}, "nothing to reset"},
	} {
		out, err := run(t, append(append([]string{"limits"}, bad.args...), "--org-id", org, "--data-dir", dir, "--config", cfg)...)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("svc limits %v: %v, want an error with %q\n%s", bad.args, err, bad.want, out)
		}
	}
	if out, err := run(t, "limits", "show", "--org-id", "org_nobody", "--data-dir", dir, "--config", cfg); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("an unknown organisation: %v\n%s", err, out)
	}
	if got := limits("show"); bucket(got, "evaluate").Limit != 20000 || got.AIDailyTokens.Tokens != 5000 {
		t.Errorf("a refused change changed the limits: %+v", got)
	}

	got = limits("reset", "--bucket", "evaluate", "--ai-daily-tokens")
	if b := bucket(got, "evaluate"); b.Own || b.Limit != 1000 || got.AIDailyTokens.Own {
		t.Errorf("after reset = %+v", got)
	}
	var actions []string
	if err := st.DB.Raw("SELECT action || ' ' || resource_id FROM audit_logs WHERE org_id = ? AND action LIKE 'platform: %limit' ORDER BY id",
		org).Scan(&actions).Error; err != nil {
		t.Fatal(err)
	}
	// One change's entries share a timestamp: compared as a set.
	want := []string{"platform: reset limit ai.daily_tokens", "platform: reset limit evaluate", "platform: set limit ai.daily_tokens", "platform: set limit evaluate"}
	slices.Sort(actions)
	if strings.Join(actions, "|") != strings.Join(want, "|") {
		t.Errorf("audit entries = %q, want %q", actions, want)
	}
}
