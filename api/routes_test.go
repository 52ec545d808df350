package api_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/auth"
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
					wantExactError(t, h.Send(requestFor(r, "")), 401, api.MsgMissingBearer)
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
		{"no header", "", "/identity/api/auth/me", 401, api.MsgMissingBearer},
		{"other scheme", "Basic " + key, "/identity/api/auth/me", 401, api.MsgMissingBearer},
		{"malformed key", "Bearer svc_sk_sandbox_short", "/identity/api/auth/me", 401, api.MsgMissingBearer},
		{"unknown key", "Bearer svc_sk_sandbox_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "/identity/api/auth/me", 401, api.MsgMissingBearer},
		{"lowercased key", "Bearer " + lowerSecret(key), "/identity/api/auth/me", 401, api.MsgMissingBearer},
		{"key in query", "", "/identity/api/auth/me?api_key=" + key, 401, api.MsgMissingBearer},
		{"key in query with header", "Bearer " + key, "/identity/api/auth/me?token=" + key, 401, api.MsgMissingBearer},
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

// TestRoutesBelongToProducts: every product route carries its product (organisation
// capabilities are checked by it), and the platform's own routes (health, metrics, OpenAPI,
// sessions, keys, users, audit log, customers, the caller's identity) carry none.
func TestRoutesBelongToProducts(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	platform := regexp.MustCompile(`^/(healthz|readyz|metrics|openapi\.json|api/auth/|api/api-keys|api/users|api/audit-logs|api/organization|api/customers|identity/api/auth/me)`)
	byPrefix := map[string]string{
		"/api/pings": auth.ProductOrchestration, "/api/workflows": auth.ProductOrchestration,
		"/api/executions": auth.ProductOrchestration, "/api/approvals": auth.ProductOrchestration,
		"/api/documents": auth.ProductDocuments, "/api/templates": auth.ProductDocuments,
		"/api/webhooks": auth.ProductWebhooks, "/api/identity": auth.ProductIdentity,
		"/api/screenings": auth.ProductScreening, "/api/screening-lists": auth.ProductScreening,
		"/api/transactions/evaluate": auth.ProductFraud, "/api/evaluate": auth.ProductFraud, "/api/lookup": auth.ProductFraud,
		"/api/device-session": auth.ProductFraud, "/api/decisions": auth.ProductFraud, "/api/rulesets": auth.ProductFraud,
		"/api/backtests": auth.ProductFraud, "/api/automations": auth.ProductAutomation, "/api/fraud-lists": auth.ProductFraud,
		"/api/alerts": auth.ProductCases, "/api/cases": auth.ProductCases, "/api/sar-filings": auth.ProductCases,
		"/api/screening-settings": auth.ProductScreening, "/api/analyses": auth.ProductStatements,
		"/api/statement-templates": auth.ProductStatements, "/api/statement-category-rules": auth.ProductStatements,
	}
	seen := map[string]bool{}
	for _, r := range h.Server.RouteTable() {
		if platform.MatchString(r.Path) {
			if r.Product != "" {
				t.Errorf("%s %s: platform route with product %q", r.Method, r.Path, r.Product)
			}
			continue
		}
		want := ""
		for prefix, p := range byPrefix {
			if r.Path == prefix || strings.HasPrefix(r.Path, prefix+"/") {
				want = p
			}
		}
		if want == "" || r.Product != want {
			t.Errorf("%s %s: product %q, want %q", r.Method, r.Path, r.Product, want)
		}
		seen[r.Product] = true
	}
	for _, p := range []string{auth.ProductOrchestration, auth.ProductDocuments, auth.ProductWebhooks, auth.ProductScreening, auth.ProductFraud} {
		if !seen[p] {
			t.Errorf("no route of product %s", p)
		}
	}
}
