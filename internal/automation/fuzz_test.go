package automation_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/automation"
)

// FuzzRedact: whatever the text and the named secret, Redact's output leaks neither the
// secret nor an svc credential.
func FuzzRedact(f *testing.F) {
	f.Add("my key is svc_sk_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "")
	f.Add("password=hunter2 and svc_whsec_abc+/=", "hunter2")
	f.Add(`{"password":"p\"w"}`, `p\"w`)
	f.Add("ted] [redacted]", "ted]")
	f.Add("aaaa", "aaa")
	f.Fuzz(func(t *testing.T, text, secret string) {
		r := automation.NewRedactor(secret)
		out := r.Redact(text)
		if leaks := r.Leaks(out); len(leaks) != 0 {
			t.Fatalf("Redact(%q) with secret %q = %q, leaks %v", text, secret, out, leaks)
		}
	})
}

// FuzzParseAnswer: model output is untrusted; parsing never panics and what it accepts is
// one JSON value.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "```json\n{}\n```", "```", "[1,", `"x" 1`, "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := automation.ParseAnswer(s)
		if err != nil {
			return
		}
		if _, err := json.Marshal(v); err != nil {
			t.Fatalf("accepted %q as %v which does not marshal: %v", s, v, err)
		}
	})
}

// FuzzRetryAfter: a provider's header never yields a negative wait or one past the cap.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"7", "-1", "99999999999999999999", "Mon, 23 Nov 2026 12:00:00 GMT", "1.5", ""} {
		f.Add(s, "")
		f.Add("", s)
	}
	now := time.Date(2026, 11, 23, 11, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ra, ms string) {
		h := http.Header{}
		if ra != "" {
			h.Set("Retry-After", strings.ToValidUTF8(ra, ""))
		}
		if ms != "" {
			h.Set("Retry-After-Ms", strings.ToValidUTF8(ms, ""))
		}
		if d := automation.RetryAfter(h, now); d < 0 || d > automation.MaxRetryAfter {
			t.Fatalf("RetryAfter(%q, %q) = %v", ra, ms, d)
		}
	})
}

// FuzzCompileSchema: a schema saved with a definition is untrusted input.
func FuzzCompileSchema(f *testing.F) {
	for _, s := range []string{`{"type":"object"}`, `{"$ref":"#"}`, `{"$ref":"file:///etc/passwd"}`, `{"allOf":[{"$ref":"#/allOf/0"}]}`, `[]`, `{`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sch, err := automation.CompileSchema([]byte(s))
		if err != nil {
			return
		}
		_ = sch.Validate(map[string]any{"a": 1.0})
	})
}
