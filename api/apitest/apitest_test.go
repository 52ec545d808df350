package apitest

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestValidateCatchesDrift proves the harness fails responses that do not match openapi.yaml.
func TestValidateCatchesDrift(t *testing.T) {
	h := New(t, Options{})
	req, _ := http.NewRequest("GET", h.URL+"/identity/api/auth/me", nil)
	hdr := http.Header{"Content-Type": {"application/json"}, "X-Service-Request-Id": {"req_12345678"}}
	tests := []struct {
		name   string
		res    Response
		wantOK bool
	}{
		{"documented failure", Response{Status: 401, Header: hdr, Body: []byte(`{"error":"missing or invalid Bearer"}`)}, true},
		{"missing required field", Response{Status: 200, Header: hdr, Body: []byte(`{"data":{"environment":"sandbox"}}`)}, false},
		{"failure without error", Response{Status: 403, Header: hdr, Body: []byte(`{"message":"no"}`)}, false},
		{"no request id", Response{Status: 401, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"error":"x"}`)}, false},
		{"429 without Retry-After", Response{Status: 429, Header: hdr, Body: []byte(`{"error":"rate limit exceeded","bucket":"read","limit":1}`)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := h.validate(req, &tt.res)
			if (err == nil) != tt.wantOK {
				t.Fatalf("validate = %v, want ok=%v", err, tt.wantOK)
			}
		})
	}
	// An unknown path must answer the failure envelope.
	if res := h.Do("GET", "/api/nope", h.AdminKey, nil); res.Status != 404 || !strings.Contains(string(res.Body), "not found") {
		t.Fatalf("unknown path = %d %s", res.Status, res.Body)
	}
}

// TestClocks: a clock stands still until moved; a running clock follows the wall clock, and
// Advance and Set move it as they move the other.
func TestClocks(t *testing.T) {
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	still := NewClock(start)
	time.Sleep(2 * time.Millisecond)
	if got := still.Now(); !got.Equal(start) {
		t.Fatalf("a clock standing still says %s, want %s", got, start)
	}
	still.Advance(time.Minute)
	if got := still.Now(); !got.Equal(start.Add(time.Minute)) {
		t.Fatalf("advanced by a minute it says %s", got)
	}

	running := NewRunningClock()
	before := time.Now()
	first := running.Now()
	if first.Before(before.Add(-time.Second)) || first.After(before.Add(time.Second)) {
		t.Fatalf("a running clock starts at %s, the wall clock says %s", first, before)
	}
	time.Sleep(5 * time.Millisecond)
	if second := running.Now(); second.Sub(first) < 5*time.Millisecond {
		t.Fatalf("a running clock moved %s in 5ms", second.Sub(first))
	}
	running.Advance(time.Hour)
	if ahead := time.Until(running.Now()); ahead < 59*time.Minute || ahead > 61*time.Minute {
		t.Fatalf("advanced by an hour it is %s ahead of the wall clock", ahead)
	}
	running.Set(start)
	if got := running.Now(); got.Before(start) || got.After(start.Add(time.Second)) {
		t.Fatalf("set to %s it says %s", start, got)
	}
	time.Sleep(5 * time.Millisecond)
	if got := running.Now(); got.Sub(start) < 5*time.Millisecond {
		t.Fatalf("set, it stopped running: %s after %s", got, start)
	}
}
