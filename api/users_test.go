package api_test

import (
	"testing"

	"github.com/svcplatform/svc/api/apitest"
)

func TestUsers(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	res := h.Do("POST", "/api/users", h.AdminKey, map[string]any{"email": "Ana@Example.com", "name": "Ana", "role": "analyst", "password": "a long password"})
	wantStatus(t, res, 201)
	u := res.Data()
	id := str(u, "id")
	if str(u, "email") != "ana@example.com" || str(u, "role") != "analyst" || u["hasPassword"] != true || u["disabled"] != false {
		t.Fatalf("created = %s", res.Body)
	}
	if _, leaked := u["passwordHash"]; leaked {
		t.Fatal("password hash in response")
	}
	for _, tt := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"email": "ana@example.com", "role": "viewer"}, "email"}, // taken
		{map[string]any{"email": "nope", "role": "viewer"}, "email"},
		{map[string]any{"email": "b@example.com", "role": "owner"}, "role"},
		{map[string]any{"email": "b@example.com", "role": "viewer", "password": "short"}, "password"},
	} {
		res := h.Do("POST", "/api/users", h.AdminKey, tt.body)
		wantStatus(t, res, 400)
		if _, ok := res.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)[tt.field]; !ok {
			t.Errorf("%v: want field error on %s: %s", tt.body, tt.field, res.Body)
		}
	}
	// The email is taken in every organisation: login finds the organisation by it.
	other := h.NewTenant("Other")
	wantStatus(t, h.Do("POST", "/api/users", other.Key, map[string]any{"email": "ANA@example.com", "role": "viewer"}), 400)

	list := h.Do("GET", "/api/users?q=ana", h.AdminKey, nil)
	wantStatus(t, list, 200)
	if list.JSON["total"].(float64) != 1 {
		t.Fatalf("list = %s", list.Body)
	}
	wantStatus(t, h.Do("GET", "/api/users?page=0", h.AdminKey, nil), 400)
	wantStatus(t, h.Do("GET", "/api/users?limit=101", h.AdminKey, nil), 400)
	wantStatus(t, h.Do("GET", "/api/users?colour=red", h.AdminKey, nil), 400)

	res = h.Do("PATCH", "/api/users/"+id, h.AdminKey, map[string]any{"role": "reviewer", "name": "Ana R."})
	wantStatus(t, res, 200)
	if str(res.Data(), "role") != "reviewer" || str(res.Data(), "name") != "Ana R." {
		t.Fatalf("patch = %s", res.Body)
	}
	got := h.Do("GET", "/api/users/"+id, h.AdminKey, nil)
	if str(got.Data(), "role") != "reviewer" {
		t.Fatalf("get = %s", got.Body)
	}
	wantStatus(t, h.Do("PATCH", "/api/users/"+id, h.AdminKey, map[string]any{"role": "root"}), 400)
	wantStatus(t, h.Do("GET", "/api/users/usr_00000000000000000000000000", h.AdminKey, nil), 404)
	// users:view reads, api:manage writes.
	viewer := h.Key("users:view")
	wantStatus(t, h.Do("GET", "/api/users/"+id, viewer, nil), 200)
	wantStatus(t, h.Do("PATCH", "/api/users/"+id, viewer, map[string]any{"name": "x"}), 403)
}
