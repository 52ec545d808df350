package auth_test

import (
	"strings"
	"testing"

	"github.com/svcplatform/svc/internal/auth"
)

func TestKeyRoundTrip(t *testing.T) {
	for _, env := range []string{auth.Sandbox, auth.Live} {
		k := auth.NewKey(env)
		if !strings.HasPrefix(k, "svc_sk_"+env+"_") || len(k) != len("svc_sk_"+env+"_")+auth.SecretLen {
			t.Fatalf("NewKey(%s) = %q", env, k)
		}
		got, err := auth.ParseKey(k)
		if err != nil || got != env {
			t.Fatalf("ParseKey(%q) = %q, %v", k, got, err)
		}
		if auth.HashKey(k) == auth.HashKey(strings.ToLower(k)) {
			t.Fatal("hash must be case-sensitive")
		}
	}
}

func TestParseKeyRejects(t *testing.T) {
	good := "svc_sk_sandbox_ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	if _, err := auth.ParseKey(good); err != nil {
		t.Fatalf("good key refused: %v", err)
	}
	for _, bad := range []string{
		"",
		"svc_sk_",
		"svc_sk_staging_ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
		"svc_sk_sandbox_abcdefghijklmnopqrstuvwxyz234567", // lowercase: compared case-sensitively
		"svc_sk_sandbox_ABCDEFGHIJKLMNOPQRSTUVWXYZ23456",  // 31 characters
		"svc_sk_sandbox_ABCDEFGHIJKLMNOPQRSTUVWXYZ2345678",
		"svc_sk_sandbox_ABCDEFGHIJKLMNOPQRSTUVWXYZ234501", // 0 and 1 are not base32
		"sk_sandbox_ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
		"svc_sk_sandboxABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
	} {
		if _, err := auth.ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q) accepted", bad)
		}
	}
}

func TestBearerToken(t *testing.T) {
	tests := []struct {
		header string
		token  string
		ok     bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"  Bearer   abc  ", "abc", true},
		{"", "", false},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Basic abc", "", false},
		{"Bearer a b", "", false},
		{"Bearer a\tb", "", false},
		{"Bearerabc", "", false},
	}
	for _, tt := range tests {
		got, ok := auth.BearerToken(tt.header)
		if got != tt.token || ok != tt.ok {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", tt.header, got, ok, tt.token, tt.ok)
		}
	}
}

// FuzzAuthorizationHeader checks that the header parser and the key parser never panic and only
// accept what they promise: a token without blanks, and a key of exactly the documented shape.
func FuzzAuthorizationHeader(f *testing.F) {
	for _, s := range []string{
		"Bearer svc_sk_sandbox_ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
		"Bearer svc_sk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
		"bearer svc_sk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ23456\u00e9",
		"Basic dXNlcjpwYXNz", "Bearer", "Bearer  ", "", "Bearer svc_sk__", "Bearer svc_sk_live_",
		"Bearer \x00\xff", "Bearer svc_sk_sandbox_" + strings.Repeat("A", 1000),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		token, ok := auth.BearerToken(header)
		if ok && (token == "" || strings.ContainsAny(token, " \t")) {
			t.Fatalf("BearerToken(%q) = %q", header, token)
		}
		env, err := auth.ParseKey(token)
		if err != nil {
			return
		}
		if env != auth.Sandbox && env != auth.Live {
			t.Fatalf("ParseKey(%q) env = %q", token, env)
		}
		if len(token) != len(auth.KeyPrefix+env+"_")+auth.SecretLen {
			t.Fatalf("ParseKey(%q) accepted a key of the wrong length", token)
		}
	})
}

func TestGrants(t *testing.T) {
	tests := []struct {
		scopes []string
		need   string
		want   bool
	}{
		{[]string{"read"}, "executions:view", true},
		{[]string{"read"}, "executions:write", false},
		{[]string{"write"}, "executions:write", true},
		{[]string{"write"}, "api:manage", false},
		{[]string{"write"}, "read", true},
		{[]string{"read"}, "write", false},
		{[]string{"executions.write"}, "executions:write", true},
		{[]string{"executions:write"}, "executions:view", true},
		{[]string{"executions:view"}, "executions:write", false},
		{[]string{"documents:write"}, "executions:view", false},
		{[]string{"webhooks:write"}, "webhooks:manage", true},
		{[]string{"api:manage"}, "api:manage", true},
		{nil, "", true},
		{nil, "read", false},
	}
	for _, tt := range tests {
		if got := auth.Grants(tt.scopes, tt.need); got != tt.want {
			t.Errorf("Grants(%v, %q) = %v, want %v", tt.scopes, tt.need, got, tt.want)
		}
	}
}

func TestRolesTable(t *testing.T) {
	want := []string{"admin", "analyst", "reviewer", "viewer"}
	if got := auth.Roles(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Roles() = %v, want %v", got, want)
	}
	tests := []struct {
		role string
		need string
		want bool
	}{
		{"admin", "api:manage", true},
		{"admin", "webhooks:manage", true},
		{"admin", "executions:write", true},
		{"reviewer", "approvals:write", true},
		{"reviewer", "executions:write", false},
		{"reviewer", "api:manage", false},
		{"analyst", "executions:write", true},
		{"analyst", "approvals:write", false},
		{"viewer", "executions:view", true},
		{"viewer", "executions:write", false},
	}
	for _, tt := range tests {
		if got := auth.Grants(auth.RoleScopes(tt.role), tt.need); got != tt.want {
			t.Errorf("role %s grants %s = %v, want %v", tt.role, tt.need, got, tt.want)
		}
	}
	for _, r := range auth.Roles() {
		for _, s := range auth.RoleScopes(r) {
			if !auth.ValidScope(s) {
				t.Errorf("role %s has invalid scope %q", r, s)
			}
		}
	}
	if auth.ValidRole("owner") || auth.RoleScopes("owner") != nil {
		t.Error("unknown role accepted")
	}
}

func TestPrincipalUserCeiling(t *testing.T) {
	p := &auth.Principal{Scopes: []string{"write"}, UserScopes: auth.RoleScopes(auth.RoleViewer)}
	if p.Can("executions:write") {
		t.Error("key bound to a viewer must not write")
	}
	if !p.Can("executions:view") {
		t.Error("key bound to a viewer must read")
	}
	var nilP *auth.Principal
	if nilP.Can("") {
		t.Error("nil principal can nothing")
	}
}

func TestPasswords(t *testing.T) {
	h, err := auth.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !auth.CheckPassword(h, "correct horse battery") || auth.CheckPassword(h, "correct horse batterY") {
		t.Fatal("CheckPassword mismatch")
	}
	if auth.CheckPassword("", "anything at all") {
		t.Fatal("empty hash matched")
	}
	for _, bad := range []string{"short", strings.Repeat("x", 73)} {
		if _, err := auth.HashPassword(bad); err == nil {
			t.Errorf("HashPassword(len %d) accepted", len(bad))
		}
	}
}
