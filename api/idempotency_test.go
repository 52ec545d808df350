package api_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

func countUsers(t *testing.T, h *apitest.Harness, email string) int64 {
	t.Helper()
	var n int64
	if err := h.Store.DB.Model(&store.User{}).Where("email = ?", email).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func TestIdempotentReplay(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	body := map[string]any{"email": "idem@example.com", "role": "viewer", "externalId": "hr-42"}
	first := h.Do("POST", "/api/users", h.AdminKey, body)
	wantStatus(t, first, 201)
	if _, ok := first.JSON["idempotent"]; ok {
		t.Fatalf("first answer is not a replay: %s", first.Body)
	}
	// The same body, with other whitespace and key order, replays the original.
	again := h.Do("POST", "/api/users", h.AdminKey, `{ "role":"viewer","externalId":"hr-42",  "email":"idem@example.com"}`)
	wantStatus(t, again, 201)
	if again.JSON["idempotent"] != true || str(again.Data(), "id") != str(first.Data(), "id") || str(again.Data(), "createdAt") != str(first.Data(), "createdAt") {
		t.Fatalf("replay = %s (first %s)", again.Body, first.Body)
	}
	if n := countUsers(t, h, "idem@example.com"); n != 1 {
		t.Fatalf("%d users created", n)
	}
	// The replay is not a second write in the audit log.
	logs := h.Do("GET", "/api/audit-logs?q="+str(first.Data(), "id"), h.AdminKey, nil)
	if rows := logs.JSON["rows"].([]any); len(rows) != 1 {
		t.Fatalf("%d audit entries for one creation", len(rows))
	}
	// The same externalId with a different body is refused.
	changed := map[string]any{"email": "idem@example.com", "role": "admin", "externalId": "hr-42"}
	wantReplay(t, h.Do("POST", "/api/users", h.AdminKey, changed), 422, api.MsgIdempotencyMismatch)
	// The scope is per organisation: another organisation's hr-42 is its own.
	other := h.NewTenant("Other")
	wantStatus(t, h.Do("POST", "/api/users", other.Key, map[string]any{"email": "other@example.com", "role": "viewer", "externalId": "hr-42"}), 201)
	// After the window the externalId is free again.
	h.Clock.Advance(h.Config.Idempotency.Window)
	res := h.Do("POST", "/api/users", h.AdminKey, map[string]any{"email": "idem2@example.com", "role": "viewer", "externalId": "hr-42"})
	wantStatus(t, res, 201)
	if res.JSON["idempotent"] != nil {
		t.Fatalf("after the window: %s", res.Body)
	}
	// A malformed externalId is a validation error.
	wantStatus(t, h.Do("POST", "/api/users", h.AdminKey, map[string]any{"email": "n@example.com", "role": "viewer", "externalId": 5}), 400)
	wantStatus(t, h.Do("POST", "/api/users", h.AdminKey, map[string]any{"email": "n@example.com", "role": "viewer", "externalId": ""}), 400)
}

func TestIdempotencyForgetsFailures(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	bad := map[string]any{"email": "fix@example.com", "role": "superuser", "externalId": "e-1"}
	wantStatus(t, h.Do("POST", "/api/users", h.AdminKey, bad), 400)
	wantStatus(t, h.Do("POST", "/api/users", h.AdminKey, bad), 400) // not a replay: it ran again
	fixed := map[string]any{"email": "fix@example.com", "role": "viewer", "externalId": "e-1"}
	res := h.Do("POST", "/api/users", h.AdminKey, fixed)
	wantStatus(t, res, 201)
	if res.JSON["idempotent"] != nil {
		t.Fatalf("corrected retry: %s", res.Body)
	}
}

// TestIdempotencyConcurrent sends twenty identical requests at once: exactly one user is created,
// and every answer is that creation (replayed) or, if the first were still running after the wait,
// 409. Without the idempotency record, nineteen would fail with "email already in use".
func TestIdempotencyConcurrent(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		b := b
		t.Run(b.Name, func(t *testing.T) {
			h := apitest.New(t, apitest.Options{Backend: &b})
			for round := 0; round < 2; round++ {
				email := fmt.Sprintf("burst%d@example.com", round)
				body := map[string]any{"email": email, "role": "viewer", "externalId": "burst-" + email}
				var wg sync.WaitGroup
				results := make([]*apitest.Response, 20)
				start := make(chan struct{})
				for i := range results {
					wg.Add(1)
					go func(i int) {
						defer wg.Done()
						<-start
						results[i] = h.Do("POST", "/api/users", h.AdminKey, body)
					}(i)
				}
				close(start)
				wg.Wait()
				ids, replays := map[string]bool{}, 0
				for _, res := range results {
					switch res.Status {
					case 201:
						ids[str(res.Data(), "id")] = true
						if res.JSON["idempotent"] == true {
							replays++
						}
					case 409:
						wantReplay(t, res, 409, api.MsgIdempotencyInFlight)
					default:
						t.Fatalf("status %d: %s", res.Status, res.Body)
					}
				}
				if len(ids) != 1 || countUsers(t, h, email) != 1 {
					t.Fatalf("%d distinct ids, %d users; want one", len(ids), countUsers(t, h, email))
				}
				if replays == 0 || replays > 19 {
					t.Fatalf("%d replays", replays)
				}
				h.Clock.Advance(time.Minute) // the write bucket is 120 a minute
			}
		})
	}
}

// TestIdempotencyLongPath: an idempotent route with a path parameter keys records by the concrete
// path; an absurdly long one must not break the record (answer 404, not 500).
func TestIdempotencyLongPath(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		b := b
		t.Run(b.Name, func(t *testing.T) {
			h := apitest.New(t, apitest.Options{Backend: &b})
			var route string
			for _, r := range h.Server.RouteTable() {
				if r.Idempotent && pathParam.MatchString(r.Path) {
					route = r.Path
					break
				}
			}
			if route == "" {
				t.Fatal("no idempotent route takes a path parameter: the route table is not being walked")
			}
			path := pathParam.ReplaceAllString(route, strings.Repeat("x", 400))
			res := h.Do("POST", path, h.AdminKey, map[string]any{"externalId": "long-1"})
			wantExactError(t, res, 404, api.MsgNotFound)
		})
	}
}
