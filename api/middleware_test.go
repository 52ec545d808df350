package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/config"
)

// TestCommonFailures covers what the middleware answers for every endpoint: JSON 404 and 405,
// 413 for oversized bodies, 415 for the wrong content type, and 400 for malformed JSON.
func TestCommonFailures(t *testing.T) {
	h := apitest.New(t, apitest.Options{Config: func(c *config.Config) { c.HTTP.MaxBodyBytes = 1024 }})
	cases := []struct {
		name   string
		req    apitest.Request
		status int
		error  string
	}{
		{"unknown path", apitest.Request{Method: "GET", Path: "/api/nothing-here", Key: h.AdminKey}, 404, api.MsgNotFound},
		{"wrong method", apitest.Request{Method: "DELETE", Path: "/healthz"}, 405, api.MsgMethodNotAllowed},
		{"oversized body", apitest.Request{Method: "POST", Path: "/api/users", Key: h.AdminKey,
			Body: []byte(`{"email":"a@b.test","name":"` + strings.Repeat("x", 2000) + `","role":"viewer"}`), Header: ct("application/json")}, 413, api.MsgTooLarge},
		{"wrong content type", apitest.Request{Method: "POST", Path: "/api/users", Key: h.AdminKey,
			Body: []byte(`email=a@b.test`), Header: ct("application/x-www-form-urlencoded")}, 415, api.MsgUnsupportedMedia + ": use application/json"},
		{"malformed JSON", apitest.Request{Method: "POST", Path: "/api/users", Key: h.AdminKey,
			Body: []byte(`{"email":`), Header: ct("application/json")}, 400, api.MsgValidation},
		{"wrong type", apitest.Request{Method: "POST", Path: "/api/users", Key: h.AdminKey,
			Body: []byte(`{"email":42,"name":"n","role":"viewer"}`), Header: ct("application/json")}, 400, api.MsgValidation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := h.With(t).Send(tc.req)
			if res.Status != tc.status || res.Error() != tc.error {
				t.Fatalf("got %d %q, want %d %q (body %s)", res.Status, res.Error(), tc.status, tc.error, res.Body)
			}
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("Content-Type = %q, want JSON", ct)
			}
		})
	}
	// Validation failures name the field.
	res := h.Send(apitest.Request{Method: "POST", Path: "/api/users", Key: h.AdminKey, Body: []byte(`{"email":42,"name":"n","role":"viewer"}`), Header: ct("application/json")})
	fe, _ := res.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)
	if _, ok := fe["email"]; !ok {
		t.Fatalf("fieldErrors do not name email: %s", res.Body)
	}
}

// TestRequestID: a sane incoming request id is echoed, anything else is replaced by a fresh one.
func TestRequestID(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	for _, tc := range []struct {
		in   string
		keep bool
	}{
		{"client-supplied-id-1234", true},
		{"", false},
		{"short", false},
		{"bad id with spaces and \u00e9", false},
		{strings.Repeat("a", 200), false},
	} {
		res := h.Send(apitest.Request{Method: "GET", Path: "/healthz", Header: http.Header{api.HeaderRequestID: {tc.in}}})
		got := res.Header.Get(api.HeaderRequestID)
		if tc.keep && got != tc.in {
			t.Errorf("incoming %q: got %q, want it echoed", tc.in, got)
		}
		if !tc.keep && (got == tc.in || !strings.HasPrefix(got, "req_")) {
			t.Errorf("incoming %q: got %q, want a fresh req_ id", tc.in, got)
		}
	}
	a := h.Do("GET", "/healthz", "", nil).Header.Get(api.HeaderRequestID)
	b := h.Do("GET", "/healthz", "", nil).Header.Get(api.HeaderRequestID)
	if a == b {
		t.Fatal("two requests got the same generated id")
	}
}

func ct(v string) http.Header { return http.Header{"Content-Type": {v}} }

// TestReadyzNamesWhatIsNotReady: without a Temporal client the readiness probe answers 503 with
// the failure envelope and the state of each dependency.
func TestReadyzNamesWhatIsNotReady(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	res := h.Do("GET", "/readyz", "", nil)
	want := `{"checks":{"database":"ok","temporal":"not configured"},"error":"service unavailable"}`
	if res.Status != 503 || strings.TrimSpace(string(res.Body)) != want {
		t.Fatalf("got %d %s, want 503 %s", res.Status, res.Body, want)
	}
}
