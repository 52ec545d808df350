package automation_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/automation"
)

func TestCompileSchema(t *testing.T) {
	bad := map[string]string{
		`[1,2]`:                             "must be a JSON object",
		`{"type": 12}`:                      "invalid JSON Schema",
		`{"$ref": "file:///etc/passwd"}`:    "invalid JSON Schema",
		`{"$ref": "https://example.com/x"}`: "invalid JSON Schema",
		`{"type":`:                          "not JSON",
	}
	for in, want := range bad {
		if _, err := automation.CompileSchema([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CompileSchema(%s) = %v, want %q", in, err, want)
		}
	}
	if _, err := automation.CompileSchema([]byte(`{"type":"object","properties":{"x":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"number"}}}`)); err != nil {
		t.Errorf("a local $ref was refused: %v", err)
	}
	if _, err := automation.CompileSchema([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`)); err != nil {
		t.Errorf("a draft-07 schema was refused: %v", err)
	}
	huge := `{"description":"` + strings.Repeat("x", automation.MaxSchemaBytes) + `"}`
	if _, err := automation.CompileSchema([]byte(huge)); err == nil {
		t.Error("an oversized schema was accepted")
	}
}

func TestParseAnswer(t *testing.T) {
	ok := map[string]string{
		`{"a":1}`:                   `{"a":1}`,
		"  ```json\n{\"a\":1}\n```": `{"a":1}`,
		"```\n[1,2]\n```":           `[1,2]`,
		`"text"`:                    `"text"`,
	}
	for in, want := range ok {
		v, err := automation.ParseAnswer(in)
		if err != nil || mustJSON(v) != want {
			t.Errorf("ParseAnswer(%q) = %v, %v; want %s", in, v, err, want)
		}
	}
	for _, in := range []string{"", "Sure! {\"a\":1}", `{"a":1} {"b":2}`, `{"a":1}}`, "```json\n```"} {
		if _, err := automation.ParseAnswer(in); err == nil {
			t.Errorf("ParseAnswer(%q) accepted", in)
		}
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	h := http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}
	if got := automation.RetryAfter(h, now); got != 90*time.Second {
		t.Fatalf("RetryAfter = %v, want 90s", got)
	}
	for _, v := range []string{"-5", "soon", now.Add(-time.Hour).Format(http.TimeFormat)} {
		if got := automation.RetryAfter(http.Header{"Retry-After": {v}}, now); got != 0 {
			t.Errorf("RetryAfter(%q) = %v, want 0", v, got)
		}
	}
}
