package api_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/svcplatform/svc/api/apitest"
)

func TestAuditLogAndCursorPagination(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	start := h.Clock.Now()
	var created []string
	for i := 0; i < 7; i++ {
		if i%3 == 0 {
			h.Clock.Advance(time.Second) // several writes share a timestamp
		}
		res := h.Do("POST", "/api/users", h.AdminKey, map[string]any{"email": fmt.Sprintf("u%d@example.com", i), "role": "viewer"})
		wantStatus(t, res, 201)
		created = append(created, str(res.Data(), "id"))
	}
	// Failed writes are not audited.
	wantStatus(t, h.Do("POST", "/api/users", h.AdminKey, map[string]any{"email": "bad"}), 400)

	seen := map[string]bool{}
	var resources []string
	path := "/api/audit-logs?limit=3"
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
		res := h.Do("GET", path, h.AdminKey, nil)
		wantStatus(t, res, 200)
		for _, r := range res.JSON["rows"].([]any) {
			e := r.(map[string]any)
			if seen[str(e, "id")] {
				t.Fatalf("entry %s repeated", str(e, "id"))
			}
			seen[str(e, "id")] = true
			resources = append(resources, str(e, "resourceId"))
			if str(e, "action") != "POST /api/users" || str(e, "userId") != h.Admin.ID || str(e, "apiKeyId") == "" ||
				str(e, "requestId") == "" || e["status"].(float64) != 201 || str(e, "environment") != "sandbox" {
				t.Fatalf("entry = %v", e)
			}
		}
		next, _ := res.JSON["nextCursor"].(string)
		if next == "" {
			break
		}
		path = "/api/audit-logs?limit=3&cursor=" + url.QueryEscape(next)
	}
	if len(resources) != 7 {
		t.Fatalf("%d entries, want 7", len(resources))
	}
	// Newest first: the last creation comes first.
	if resources[0] != created[6] && resources[0] != created[5] {
		t.Fatalf("first entry %s is not among the newest", resources[0])
	}
	// Time filters, inclusive, and validation.
	from := url.QueryEscape(start.Add(time.Second).Format(time.RFC3339Nano))
	to := url.QueryEscape(start.Add(2 * time.Second).Format(time.RFC3339Nano))
	res := h.Do("GET", "/api/audit-logs?from="+from+"&to="+to, h.AdminKey, nil)
	wantStatus(t, res, 200)
	if n := len(res.JSON["rows"].([]any)); n != 6 {
		t.Fatalf("from/to inclusive: %d entries, want 6", n)
	}
	day := start.Format("2006-01-02")
	if res := h.Do("GET", "/api/audit-logs?to="+day+"&from="+day, h.AdminKey, nil); res.Status != 200 {
		t.Fatalf("same-day date range: %d %s", res.Status, res.Body)
	}
	for _, q := range []string{"cursor=bogus", "limit=0", "limit=201", "from=yesterday", "from=" + to + "&to=" + from, "page=2", "status=x"} {
		res := h.Do("GET", "/api/audit-logs?"+q, h.AdminKey, nil)
		wantStatus(t, res, 400)
		if res.JSON["details"] == nil {
			t.Fatalf("%s: no details: %s", q, res.Body)
		}
	}
	// Another organisation sees none of it.
	other := h.NewTenant("Other")
	if res := h.Do("GET", "/api/audit-logs", other.Key, nil); len(res.JSON["rows"].([]any)) != 0 {
		t.Fatalf("other organisation sees %s", res.Body)
	}
}
