package api_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"slices"
	"testing"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/internal/auth"
)

// routeRequest is a request to r that passes the body checks (so the answer comes from the
// middleware behind them), made with key.
func routeRequest(t *testing.T, r api.Route, key string) apitest.Request {
	req := apitest.Request{Method: r.Method, Path: concretePath(r), Key: key}
	switch r.Body {
	case api.BodyJSON:
		req.Body = map[string]any{}
	case api.BodyMultipart:
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		if err := w.WriteField("note", "capability check"); err != nil {
			t.Fatal(err)
		}
		_ = w.Close()
		req.Body = b.Bytes()
		req.Header = http.Header{"Content-Type": {w.FormDataContentType()}}
	}
	return req
}

// TestCapabilityMatrix: for each product, an organisation without it gets 403 `org capability
// disabled` (SPEC 7.3) on every one of the product's routes, while an organisation with it does
// not; the platform's routes belong to no product and every product route names a known one.
func TestCapabilityMatrix(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	h.NoRateLimits(h.Org.ID)
	byProduct := map[string][]api.Route{}
	for _, r := range h.Server.RouteTable() {
		if r.Public {
			continue
		}
		if r.Product != "" && !slices.Contains(auth.Products(), r.Product) {
			t.Errorf("%s %s: unknown product %q", r.Method, r.Path, r.Product)
		}
		byProduct[r.Product] = append(byProduct[r.Product], r)
	}
	cells := 0
	for _, product := range auth.Products() {
		routes := byProduct[product]
		if len(routes) == 0 {
			t.Logf("%s: no routes yet", product)
			continue
		}
		var others []string
		for _, p := range auth.Products() {
			if p != product {
				others = append(others, p)
			}
		}
		without := h.NewTenantWith("without "+product, others)
		h.NoRateLimits(without.Org.ID)
		for _, r := range routes {
			cells++
			res := h.Send(routeRequest(t, r, without.Key))
			if res.Status != http.StatusForbidden || res.Error() != api.MsgCapability {
				t.Errorf("%s %s without %s: %d %q, want 403 %q", r.Method, r.Path, product, res.Status, res.Error(), api.MsgCapability)
			}
			if res := h.Send(routeRequest(t, r, h.AdminKey)); res.Error() == api.MsgCapability {
				t.Errorf("%s %s: refused to an organisation that has %s", r.Method, r.Path, product)
			}
		}
	}
	for _, r := range byProduct[""] {
		if res := h.Send(routeRequest(t, r, h.NewTenantWith("no products", []string{}).Key)); res.Error() == api.MsgCapability {
			t.Errorf("platform route %s %s refused for lack of a capability", r.Method, r.Path)
		}
	}
	if cells == 0 {
		t.Fatal("no product route was checked")
	}
	t.Logf("capability matrix: %d product routes checked both ways across %d products", cells, len(byProduct)-1)
}

// TestSetCapabilities: PUT /api/organization/capabilities changes what the organisation may use
// at once (the per-process cache is cleared), shows in /identity/api/auth/me, is audit-logged
// and needs api:manage.
func TestSetCapabilities(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	h.NoRateLimits(h.Org.ID)
	me := h.Do("GET", "/identity/api/auth/me", h.AdminKey, nil)
	org, _ := me.Data()["organization"].(map[string]any)
	if got, _ := org["capabilities"].([]any); len(got) != len(auth.Products()) {
		t.Fatalf("a new organisation has every product, me says %v", org["capabilities"])
	}
	if res := h.Do("GET", "/api/workflows", h.AdminKey, nil); res.Status != 200 {
		t.Fatalf("list workflows: %d", res.Status)
	}
	res := h.Do("PUT", "/api/organization/capabilities", h.AdminKey, map[string]any{"capabilities": []string{"documents"}})
	if res.Status != 200 {
		t.Fatalf("set capabilities: %d %s", res.Status, res.Body)
	}
	if got := h.Do("GET", "/api/workflows", h.AdminKey, nil); got.Status != 403 || got.Error() != api.MsgCapability {
		t.Errorf("after removing orchestration: %d %q", got.Status, got.Error())
	}
	if got := h.Do("GET", "/api/documents", h.AdminKey, nil); got.Status != 200 {
		t.Errorf("documents kept: %d", got.Status)
	}
	me = h.Do("GET", "/api/organization", h.AdminKey, nil)
	if got, _ := me.Data()["capabilities"].([]any); len(got) != 1 || got[0] != "documents" {
		t.Errorf("organization shows %v", me.Data()["capabilities"])
	}
	audit := h.Do("GET", "/api/audit-logs?limit=5", h.AdminKey, nil)
	rows, _ := audit.JSON["rows"].([]any)
	found := false
	for _, r := range rows {
		if row, _ := r.(map[string]any); row["action"] == "PUT /api/organization/capabilities" && row["resourceId"] == h.Org.ID {
			found = true
		}
	}
	if !found {
		t.Errorf("no audit entry for the change: %s", audit.Body)
	}
	for _, bad := range []any{map[string]any{}, map[string]any{"capabilities": []string{"payroll"}}, map[string]any{"capabilities": []string{"*", "fraud"}}, map[string]any{"capabilities": "documents"}} {
		if got := h.Do("PUT", "/api/organization/capabilities", h.AdminKey, bad); got.Status != 400 || got.JSON["details"] == nil {
			t.Errorf("%v: %d %s, want 400 with fieldErrors", bad, got.Status, got.Body)
		}
	}
	if got := h.Do("PUT", "/api/organization/capabilities", h.Key("read"), map[string]any{"capabilities": []string{"*"}}); got.Status != 403 {
		t.Errorf("without api:manage: %d", got.Status)
	}
	if got := h.Do("PUT", "/api/organization/capabilities", h.AdminKey, map[string]any{"capabilities": []string{"*"}}); got.Status != 200 {
		t.Fatalf("restore: %d", got.Status)
	}
	if got := h.Do("GET", "/api/workflows", h.AdminKey, nil); got.Status != 200 {
		t.Errorf("after restoring every product: %d", got.Status)
	}
}
