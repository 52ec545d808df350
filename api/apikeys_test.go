package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/store"
)

func TestAPIKeyCreateListGet(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	res := h.Do("POST", "/api/api-keys", h.AdminKey, map[string]any{
		"name": "ci", "scopes": []string{"executions.write", "read", "read"}, "actAsUserId": h.Admin.ID,
		"expiresAt": h.Clock.Now().Add(48 * time.Hour).Format(time.RFC3339),
	})
	wantStatus(t, res, 201)
	d := res.Data()
	secret := str(d, "key")
	if env, err := auth.ParseKey(secret); err != nil || env != "sandbox" {
		t.Fatalf("issued key %q: %v", secret, err)
	}
	id := str(d, "id")
	if str(d, "environment") != "sandbox" || str(d, "status") != "active" || str(d, "actAsUserId") != h.Admin.ID ||
		str(d, "maskedKey") != "svc_sk_sandbox_…"+secret[len(secret)-4:] {
		t.Fatalf("created = %s", res.Body)
	}
	if got := d["scopes"].([]any); len(got) != 2 || got[0] != "executions:write" || got[1] != "read" {
		t.Fatalf("scopes normalised and deduplicated = %v", got)
	}
	// The secret is never shown again, and never stored.
	for _, path := range []string{"/api/api-keys", "/api/api-keys/" + id} {
		res := h.Do("GET", path, h.AdminKey, nil)
		wantStatus(t, res, 200)
		if strings.Contains(string(res.Body), secret) || strings.Contains(string(res.Body), secret[15:]) {
			t.Fatalf("GET %s shows the secret: %s", path, res.Body)
		}
	}
	var stored store.APIKey
	h.Store.DB.Where("id = ?", id).Take(&stored)
	if stored.Hash != auth.HashKey(secret) || strings.Contains(stored.Hash, secret[15:]) {
		t.Fatal("key must be stored as its SHA-256 only")
	}
	list := h.Do("GET", "/api/api-keys?limit=1&q=C", h.AdminKey, nil)
	wantStatus(t, list, 200)
	if list.JSON["total"].(float64) != 1 || list.JSON["limit"].(float64) != 1 {
		t.Fatalf("list = %s", list.Body)
	}
	// The new key works, acting as its bound user.
	me := h.Do("GET", "/identity/api/auth/me", secret, nil)
	wantStatus(t, me, 200)
	if str(me.Data(), "apiKeyId") != id || str(me.Data()["user"].(map[string]any), "id") != h.Admin.ID ||
		str(me.Data()["organization"].(map[string]any), "id") != h.Org.ID || str(me.Data(), "environment") != "sandbox" ||
		me.Data()["callerServiceSlug"] != nil {
		t.Fatalf("me = %s", me.Body)
	}
}

func TestAPIKeyCreateValidation(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	other := h.NewTenant("Other")
	tests := []struct {
		name  string
		body  any
		field string
	}{
		{"empty", map[string]any{}, "name"},
		{"no scopes", map[string]any{"name": "x"}, "scopes"},
		{"empty scopes", map[string]any{"name": "x", "scopes": []string{}}, "scopes"},
		{"bad scope", map[string]any{"name": "x", "scopes": []string{"root"}}, "scopes"},
		{"scopes not array", map[string]any{"name": "x", "scopes": "read"}, "scopes"},
		{"name too long", map[string]any{"name": strings.Repeat("n", 201), "scopes": []string{"read"}}, "name"},
		{"past expiry", map[string]any{"name": "x", "scopes": []string{"read"}, "expiresAt": "2001-01-01T00:00:00Z"}, "expiresAt"},
		{"bad expiry", map[string]any{"name": "x", "scopes": []string{"read"}, "expiresAt": "tomorrow"}, "expiresAt"},
		{"user of another org", map[string]any{"name": "x", "scopes": []string{"read"}, "actAsUserId": other.User.ID}, "actAsUserId"},
		{"not a user id", map[string]any{"name": "x", "scopes": []string{"read"}, "actAsUserId": "bob"}, "actAsUserId"},
		// Service principal keys are issued by the platform only.
		{"service slug", map[string]any{"name": "x", "scopes": []string{"read"}, "callerServiceSlug": "aml"}, "callerServiceSlug"},
		{"externalId", map[string]any{"name": "x", "scopes": []string{"read"}, "externalId": "e1"}, "externalId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := h.Do("POST", "/api/api-keys", h.AdminKey, tt.body)
			wantStatus(t, res, 400)
			fe, _ := res.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)
			if _, ok := fe[tt.field]; !ok || res.Error() != api.MsgValidation {
				t.Fatalf("want a field error on %s: %s", tt.field, res.Body)
			}
		})
	}
	var n int64
	h.Store.DB.Model(&store.APIKey{}).Where("org_id = ?", h.Org.ID).Count(&n)
	if n != 1 {
		t.Fatalf("%d keys exist after refused creations, want only the admin's", n)
	}
	// A caller cannot grant what it does not hold.
	weak := h.Key("api:manage", "documents:view")
	wantExactError(t, h.Do("POST", "/api/api-keys", weak, map[string]any{"name": "x", "scopes": []string{"write"}}), 403, "missing scope: write")
	wantStatus(t, h.Do("POST", "/api/api-keys", weak, map[string]any{"name": "x", "scopes": []string{"documents.view"}}), 201)
}

func TestAPIKeyRotationWithClock(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	old, oldID := h.KeyWith(apitest.KeySpec{Scopes: []string{"read"}})
	start := h.Clock.Now()
	res := h.Do("POST", "/api/api-keys/"+oldID+"/rotate", h.AdminKey, nil)
	wantStatus(t, res, 201)
	d := res.Data()
	fresh := str(d, "key")
	until, err := time.Parse(time.RFC3339, str(d, "previousValidUntil"))
	if err != nil || !until.Equal(start.Add(24*time.Hour).Truncate(time.Millisecond)) || str(d, "previousKeyId") != oldID || fresh == old {
		t.Fatalf("rotate = %s", res.Body)
	}
	// Rotating again is a state conflict.
	wantExactError(t, h.Do("POST", "/api/api-keys/"+oldID+"/rotate", h.AdminKey, nil), 409, api.StateConflictMessage("rotated", "rotated"))
	for _, step := range []struct {
		at       time.Duration
		oldWorks bool
	}{{0, true}, {23*time.Hour + 59*time.Minute, true}, {24 * time.Hour, false}, {30 * time.Hour, false}} {
		h.Clock.Set(start.Add(step.at))
		res := h.Do("GET", "/identity/api/auth/me", old, nil)
		if step.oldWorks {
			wantStatus(t, res, 200)
		} else {
			wantExactError(t, res, 401, api.MsgMissingBearer) // revoked with no job run
		}
		wantStatus(t, h.Do("GET", "/identity/api/auth/me", fresh, nil), 200)
	}
	got := h.Do("GET", "/api/api-keys/"+oldID, h.AdminKey, nil)
	if str(got.Data(), "status") != "revoked" || str(got.Data(), "rotatedToId") != str(d, "id") {
		t.Fatalf("old key = %s", got.Body)
	}
}

func TestAPIKeyExpiryAndRevocation(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	exp := h.Clock.Now().Add(time.Hour)
	key, id := h.KeyWith(apitest.KeySpec{Scopes: []string{"read"}, ExpiresAt: &exp})
	wantStatus(t, h.Do("GET", "/identity/api/auth/me", key, nil), 200)
	h.Clock.Advance(time.Hour)
	wantExactError(t, h.Do("GET", "/identity/api/auth/me", key, nil), 401, api.MsgKeyExpired)
	if res := h.Do("GET", "/api/api-keys/"+id, h.AdminKey, nil); str(res.Data(), "status") != "expired" {
		t.Fatalf("status = %s", res.Body)
	}
	// An expired key cannot be rotated back to life.
	wantStatus(t, h.Do("POST", "/api/api-keys/"+id+"/rotate", h.AdminKey, nil), 409)

	// Revocation takes effect on the next request, even though the lookup was just cached.
	key2, id2 := h.KeyWith(apitest.KeySpec{Scopes: []string{"read"}})
	wantStatus(t, h.Do("GET", "/identity/api/auth/me", key2, nil), 200)
	res := h.Do("DELETE", "/api/api-keys/"+id2, h.AdminKey, nil)
	wantStatus(t, res, 200)
	if str(res.Data(), "status") != "revoked" {
		t.Fatalf("revoke = %s", res.Body)
	}
	wantExactError(t, h.Do("GET", "/identity/api/auth/me", key2, nil), 401, api.MsgMissingBearer)
	wantStatus(t, h.Do("DELETE", "/api/api-keys/"+id2, h.AdminKey, nil), 200) // again: no change
}

func TestAPIKeyUpdateAndBinding(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	key, id := h.KeyWith(apitest.KeySpec{Scopes: []string{"write"}})
	reviewer := h.Do("POST", "/api/users", h.AdminKey, map[string]any{"email": "rev@example.com", "role": "reviewer"})
	wantStatus(t, reviewer, 201)
	revID := str(reviewer.Data(), "id")

	// Unbound: SPEC 5.5 four-eyes endpoints need a bound user; me shows none.
	if me := h.Do("GET", "/identity/api/auth/me", key, nil); me.Data()["user"] != nil {
		t.Fatalf("unbound me = %s", me.Body)
	}
	res := h.Do("PATCH", "/api/api-keys/"+id, h.AdminKey, map[string]any{"actAsUserId": revID, "name": "bot"})
	wantStatus(t, res, 200)
	if str(res.Data(), "actAsUserId") != revID || str(res.Data(), "name") != "bot" {
		t.Fatalf("patch = %s", res.Body)
	}
	me := h.Do("GET", "/identity/api/auth/me", key, nil)
	if str(me.Data()["user"].(map[string]any), "id") != revID {
		t.Fatalf("bound me = %s", me.Body)
	}
	// Bound to a reviewer, a "write" key can do only what a reviewer may.
	wantStatus(t, h.Do("GET", "/api/users", key, nil), 200)
	wantExactError(t, h.Do("POST", "/api/pings", key, map[string]any{}), 403, "missing scope: pings:write")
	// A key bound to a disabled user is refused, from the next request on.
	wantStatus(t, h.Do("PATCH", "/api/users/"+revID, h.AdminKey, map[string]any{"disabled": true}), 200)
	wantExactError(t, h.Do("GET", "/identity/api/auth/me", key, nil), 401, api.MsgMissingBearer)
	// Binding to a disabled user is refused; unbinding (null) makes the key usable again.
	res = h.Do("PATCH", "/api/api-keys/"+id, h.AdminKey, map[string]any{"actAsUserId": revID})
	wantStatus(t, res, 400)
	res = h.Do("PATCH", "/api/api-keys/"+id, h.AdminKey, map[string]any{"actAsUserId": nil, "scopes": []string{"read"}})
	wantStatus(t, res, 200)
	if res.Data()["actAsUserId"] != nil {
		t.Fatalf("unbind = %s", res.Body)
	}
	wantStatus(t, h.Do("GET", "/identity/api/auth/me", key, nil), 200)
	wantExactError(t, h.Do("POST", "/api/pings", key, map[string]any{}), 403, "missing scope: pings:write")
	// Bad patches.
	for _, body := range []any{
		map[string]any{"name": ""}, map[string]any{"scopes": []string{}}, map[string]any{"scopes": []string{"nope"}},
		map[string]any{"actAsUserId": 7}, map[string]any{"callerServiceSlug": "x"}, "[1]",
	} {
		wantStatus(t, h.Do("PATCH", "/api/api-keys/"+id, h.AdminKey, body), 400)
	}
}

func TestServicePrincipalKeys(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	res, err := h.Store.Orgs.Bootstrap(context.Background(), store.BootstrapInput{OrgID: h.Org.ID, ServiceSlug: "aml-screening",
		Scopes: []string{"api:manage"}, Environment: "sandbox", Now: h.Clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	me := h.Do("GET", "/identity/api/auth/me", res.Secret, nil)
	if str(me.Data(), "callerServiceSlug") != "aml-screening" || me.Data()["user"] != nil {
		t.Fatalf("me = %s", me.Body)
	}
	// The slug is written to the audit log with the key id.
	created := h.Do("POST", "/api/users", res.Secret, map[string]any{"email": "svc@example.com", "role": "viewer"})
	wantStatus(t, created, 201)
	logs := h.Do("GET", "/api/audit-logs?q="+str(created.Data(), "id"), h.AdminKey, nil)
	wantStatus(t, logs, 200)
	entry := logs.JSON["rows"].([]any)[0].(map[string]any)
	if str(entry, "callerServiceSlug") != "aml-screening" || str(entry, "apiKeyId") != res.Key.ID ||
		str(entry, "resourceId") != str(created.Data(), "id") || str(entry, "action") != "POST /api/users" || entry["userId"] != nil {
		t.Fatalf("audit entry = %v", entry)
	}
	wantExactError(t, h.Do("PATCH", "/api/api-keys/"+res.Key.ID, h.AdminKey, map[string]any{"name": "mine"}), 422, api.MsgServiceKey)
	wantExactError(t, h.Do("POST", "/api/api-keys/"+res.Key.ID+"/rotate", h.AdminKey, nil), 422, api.MsgServiceKey)
	wantStatus(t, h.Do("DELETE", "/api/api-keys/"+res.Key.ID, h.AdminKey, nil), 200)
	wantExactError(t, h.Do("GET", "/identity/api/auth/me", res.Secret, nil), 401, api.MsgMissingBearer)
}
