package api_test

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/config"
)

var pathParam = regexp.MustCompile(`:[A-Za-z0-9_]+`)

// concretePath fills every path parameter with an id that exists nowhere.
func concretePath(r api.Route) string {
	return pathParam.ReplaceAllString(r.Path, "zzz_00000000000000000000000000")
}

// requestFor builds a request to r that passes the body checks (content type), so that what the
// test sees is authentication's answer.
func requestFor(r api.Route, key string) apitest.Request {
	req := apitest.Request{Method: r.Method, Path: concretePath(r), Key: key}
	switch r.Body {
	case api.BodyJSON:
		req.Body = map[string]any{}
	case api.BodyMultipart:
		req.Header = http.Header{"Content-Type": {"multipart/form-data; boundary=x"}}
		req.Body = "--x--\r\n"
	}
	return req
}

// TestRouteTableAuthentication walks THE route table, so routes added later are covered too:
// every non-public route refuses a missing key (401), a key lacking its scope (403 missing scope)
// and a key of the other environment (403).
func TestRouteTableAuthentication(t *testing.T) {
	for _, deployment := range []string{"sandbox", "live"} {
		t.Run(deployment, func(t *testing.T) {
			h := apitest.New(t, apitest.Options{Config: func(c *config.Config) { c.Environment = deployment }})
			other := map[string]string{"sandbox": "live", "live": "sandbox"}[deployment]
			lacking := h.Key("unrelated:view")
			checked := 0
			for _, r := range h.Server.RouteTable() {
				if r.Public {
					continue
				}
				r := r
				t.Run(r.Method+" "+r.Path, func(t *testing.T) {
					wantExactError(t, h.Send(requestFor(r, "")), 401, api.ErrMissingBearer)
					if r.Scope != "" {
						wantExactError(t, h.Send(requestFor(r, lacking)), 403, "missing scope: "+r.Scope)
					}
					scopes := []string{"write", "api:manage", "webhooks:manage"}
					if r.Scope != "" {
						scopes = append(scopes, r.Scope)
					}
					foreign, _ := h.KeyWith(apitest.KeySpec{Environment: other, Scopes: scopes})
					wantExactError(t, h.Send(requestFor(r, foreign)), 403, "key is "+other+"; endpoint is "+deployment)
				})
				checked++
			}
			if checked < 10 {
				t.Fatalf("only %d authenticated routes: the route table is not being walked", checked)
			}
		})
	}
}

// TestAuthenticationFailures checks the exact SPEC 5.7 answers on one route.
func TestAuthenticationFailures(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	key := h.Key("read")
	tests := []struct {
		name   string
		header string
		path   string
		status int
		msg    string
	}{
		{"no header", "", "/identity/api/auth/me", 401, api.ErrMissingBearer},
		{"other scheme", "Basic " + key, "/identity/api/auth/me", 401, api.ErrMissingBearer},
		{"malformed key", "Bearer svc_sk_sandbox_short", "/identity/api/auth/me", 401, api.ErrMissingBearer},
		{"unknown key", "Bearer svc_sk_sandbox_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "/identity/api/auth/me", 401, api.ErrMissingBearer},
		{"lowercased key", "Bearer " + lowerSecret(key), "/identity/api/auth/me", 401, api.ErrMissingBearer},
		{"key in query", "", "/identity/api/auth/me?api_key=" + key, 401, api.ErrMissingBearer},
		{"key in query with header", "Bearer " + key, "/identity/api/auth/me?token=" + key, 401, api.ErrMissingBearer},
		{"valid", "Bearer " + key, "/identity/api/auth/me", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := apitest.Request{Method: "GET", Path: tt.path, Header: http.Header{}}
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			res := h.Send(req)
			if tt.msg == "" {
				wantStatus(t, res, tt.status)
				return
			}
			wantExactError(t, res, tt.status, tt.msg)
		})
	}
}

// lowerSecret lowercases the secret part of a key (keys are compared case-sensitively).
func lowerSecret(key string) string {
	b := []byte(key)
	for i := len(b) - 32; i < len(b); i++ {
		if b[i] >= 'A' && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}
