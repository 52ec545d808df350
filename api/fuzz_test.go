package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/svcplatform/svc/api/apitest"
)

// FuzzAuthorizationHeader sends arbitrary Authorization headers through the real server: the
// answer is always one of the documented ones (and matches openapi.yaml), never a 500.
func FuzzAuthorizationHeader(f *testing.F) {
	h := apitest.New(f, apitest.Options{})
	h.NoRateLimits(h.Org.ID)
	live, _ := h.KeyWith(apitest.KeySpec{Environment: "live", Scopes: []string{"read"}})
	for _, s := range []string{
		"Bearer " + h.AdminKey, "bearer " + h.AdminKey, "Bearer " + live, "Bearer  " + h.AdminKey + " ",
		"Bearer " + strings.ToLower(h.AdminKey), "Bearer " + h.AdminKey[:len(h.AdminKey)-1], "Basic " + h.AdminKey,
		"Bearer", "", "Bearer svc_sk_sandbox_" + strings.Repeat("A", 32), "Bearer svc_sk_sandbox_" + strings.Repeat("A", 4000),
		"Bearer \x00", "Bearer svc_sk_\u00e9", "Bearer a b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		if strings.ContainsAny(header, "\r\n") || !validHeaderValue(header) {
			return // not sendable as an HTTP header
		}
		res := h.With(t).Send(apitest.Request{Method: "GET", Path: "/identity/api/auth/me", Header: http.Header{"Authorization": {header}}})
		switch res.Status {
		case 200, 401, 403:
		default:
			t.Fatalf("Authorization %q → %d %s", header, res.Status, res.Body)
		}
	})
}

// validHeaderValue reports whether net/http will send v as a header value.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// FuzzAPIKeyBodies sends arbitrary JSON bodies to the key endpoints: never a 500.
func FuzzAPIKeyBodies(f *testing.F) {
	h := apitest.New(f, apitest.Options{})
	h.NoRateLimits(h.Org.ID)
	actor := h.Key("write", "api:manage")
	_, target := h.KeyWith(apitest.KeySpec{Scopes: []string{"read"}})
	for _, s := range []string{
		`{"name":"ci","scopes":["read"]}`,
		`{"name":"ci","scopes":["executions.write"],"expiresAt":"2999-01-01T00:00:00Z"}`,
		`{"name":"ci","scopes":["read"],"actAsUserId":"` + h.Admin.ID + `"}`,
		`{"name":"ci","scopes":["read"],"actAsUserId":null}`,
		`{"name":"","scopes":[]}`, `{"scopes":[1,2]}`, `{"name":{"a":1}}`, `[]`, `null`, `"x"`, `{`, ``, `{}{}`,
		`{"name":"x","scopes":["read"],"expiresAt":"9999-99-99"}`, `{"name":"\u0000","scopes":["a:b"]}`,
		`{"name":"x","scopes":["` + strings.Repeat("a", 10000) + `:view"]}`,
		`{"name":"x","scopes":["read"],"callerServiceSlug":"svc"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		hh := h.With(t)
		for _, req := range []apitest.Request{
			{Method: "POST", Path: "/api/api-keys", Key: actor, Body: body},
			{Method: "PATCH", Path: "/api/api-keys/" + target, Key: actor, Body: body},
		} {
			res := hh.Send(req)
			switch res.Status {
			case 200, 201, 400, 403, 413, 422:
			default:
				t.Fatalf("%s %s %q → %d %s", req.Method, req.Path, body, res.Status, res.Body)
			}
		}
	})
}

// FuzzCustomerBodies: any body to customer creation and PATCH answers a success or a client
// error, never a 5xx.
func FuzzCustomerBodies(f *testing.F) {
	h := apitest.New(f, apitest.Options{})
	h.NoRateLimits(h.Org.ID)
	created := h.Do("POST", "/api/customers", h.AdminKey, map[string]any{"type": "person", "fullName": "Fuzz Target"})
	target := created.Data()["id"].(string)
	for _, s := range []string{
		`{"type":"person","fullName":"Budi","birthDate":"1980-01-31","nationality":"ID","identifiers":[{"type":"tax_id","value":"1"}]}`,
		`{"type":"organisation","fullName":"PT X","country":null,"monitoring":true}`,
		`{"status":"inactive"}`, `{"status":null}`, `{"birthDate":"1980-02-30"}`, `{"identifiers":null}`,
		`{"identifiers":[{"type":"a","value":"b","country":"zz"}]}`, `{"fullName":"\u0000"}`,
		`[]`, `null`, `"x"`, `{`, ``, `{}{}`, `{"monitoring":"1"}`, `{"externalId":5}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		hh := h.With(t)
		for _, req := range []apitest.Request{
			{Method: "POST", Path: "/api/customers", Key: h.AdminKey, Body: body},
			{Method: "PATCH", Path: "/api/customers/" + target, Key: h.AdminKey, Body: body},
		} {
			res := hh.Send(req)
			switch res.Status {
			case 200, 201, 400, 409, 413, 422:
			default:
				t.Fatalf("%s %s %q → %d %s", req.Method, req.Path, body, res.Status, res.Body)
			}
		}
	})
}
