package apitest

import (
	"net/http"
	"strings"
	"testing"
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
