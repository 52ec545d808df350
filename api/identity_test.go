package api_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/internal/blobs"
	"github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
)

// newIdentityAttempt stores a verification of orgID with one attempt whose front image is front.
func newIdentityAttempt(t *testing.T, h *apitest.Harness, orgID string, front []byte) *store.IdentityAttempt {
	t.Helper()
	return newIdentityAttemptAt(t, h, orgID, "", time.Time{}, front)
}

// newIdentityAttemptAt is newIdentityAttempt for a verification of customerID, the attempt
// created at created (now when zero).
func newIdentityAttemptAt(t *testing.T, h *apitest.Harness, orgID, customerID string, created time.Time, front []byte) *store.IdentityAttempt {
	t.Helper()
	ctx := context.Background()
	bl, err := blobs.NewLocal(h.Config.BlobDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := blobs.Put(ctx, bl, bytes.NewReader(front), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	v := &store.IdentityVerification{ID: ids.New(ids.IdentityVerification), OrgID: orgID, CustomerID: customerID,
		Claimed: identity.Claimed{FullName: "Siti Rahayu", BirthDate: "1990-06-05"},
		Policy:  identity.Policy{DocumentTypes: []string{"ktp"}}, ExpiresAt: time.Now().Add(time.Hour)}
	if err := h.Store.Identity.CreateVerification(ctx, v); err != nil {
		t.Fatal(err)
	}
	a := &store.IdentityAttempt{ID: ids.New(ids.IdentityAttempt), OrgID: orgID, VerificationID: v.ID, FrontKey: b.Key, CreatedAt: created}
	if err := h.Store.Identity.SubmitAttempt(ctx, a, time.Now()); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestIdentityImageReadsAreAudited: an attempt's image is readable by its organisation only,
// and every read is in the audit log with the key that read it.
func TestIdentityImageReadsAreAudited(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...)
	a := newIdentityAttempt(t, h, h.Org.ID, png)
	key, keyID := h.KeyWith(apitest.KeySpec{Scopes: []string{"verifications:view"}})
	path := "/api/identity/attempts/" + a.ID + "/images/"
	res := h.Do("GET", path+"front", key, nil)
	if res.Status != 200 || !bytes.Equal(res.Body, png) || res.Header.Get("Content-Type") != "image/png" || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("front = %d %q %v", res.Status, res.Header.Get("Content-Type"), res.Header)
	}
	if res := h.Do("GET", path+"back", key, nil); res.Status != 404 {
		t.Errorf("missing back = %d", res.Status)
	}
	if res := h.Do("GET", path+"side", key, nil); res.Status != 404 {
		t.Errorf("unknown side = %d", res.Status)
	}
	other := h.NewTenant("other")
	if res := h.Do("GET", path+"front", other.Key, nil); res.Status != 404 {
		t.Errorf("another organisation = %d", res.Status)
	}
	logs := h.Do("GET", "/api/audit-logs?limit=200", h.AdminKey, nil)
	reads := 0
	for _, row := range logs.JSON["rows"].([]any) {
		m := row.(map[string]any)
		if m["action"] == "GET /api/identity/attempts/:id/images/:side" {
			reads++
			if m["resourceId"] != a.ID || m["apiKeyId"] != keyID || m["status"] != 200.0 {
				t.Errorf("audit row %v", m)
			}
		}
	}
	if reads != 1 {
		t.Errorf("%d audited image reads, want 1 (the successful one)", reads)
	}
}

// TestIdentityAttemptsFeedFilters: the attempts feed filters by status, customer and creation
// time, refuses an unknown status with its field named, and shows another organisation nothing.
func TestIdentityAttemptsFeedFilters(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{9}, 50)...)
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 12, 0, 0, 0, time.UTC) }
	a := newIdentityAttemptAt(t, h, h.Org.ID, "cus_a", day(1, 10), png)
	b := newIdentityAttemptAt(t, h, h.Org.ID, "cus_b", day(1, 20), png)
	c := newIdentityAttemptAt(t, h, h.Org.ID, "cus_a", day(2, 5), png)
	if _, err := h.Store.Identity.CompleteAttempt(context.Background(), h.Org.ID, a.ID, identity.AttemptCompleted, nil,
		identity.Outcome{Status: identity.StatusVerified}, day(1, 10)); err != nil {
		t.Fatal(err)
	}
	key := h.Key("verifications:view")
	feed := func(query string) []string {
		t.Helper()
		r := h.Do("GET", "/api/identity/attempts?"+query, key, nil)
		if r.Status != 200 {
			t.Fatalf("feed %s = %d %s", query, r.Status, r.Body)
		}
		var out []string
		for _, row := range r.JSON["rows"].([]any) {
			out = append(out, row.(map[string]any)["id"].(string))
		}
		return out
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{c.ID, b.ID, a.ID}},
		{"status=completed", []string{a.ID}},
		{"status=processing", []string{c.ID, b.ID}},
		{"customerId=cus_a", []string{c.ID, a.ID}},
		{"from=2026-01-15&to=2026-01-31", []string{b.ID}},
		{"customerId=cus_a&from=2026-02-01", []string{c.ID}},
		{"customerId=cus_b&status=completed", nil},
	} {
		if got := feed(tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("feed %q = %v, want %v", tc.query, got, tc.want)
		}
	}
	if r := h.Do("GET", "/api/identity/attempts?status=verified", key, nil); r.Status != 400 || r.JSON["details"] == nil {
		t.Errorf("unknown attempt status = %d %s", r.Status, r.Body)
	}
	if r := h.Do("GET", "/api/identity/attempts", h.NewTenant("other").Key, nil); r.Status != 200 || len(r.JSON["rows"].([]any)) != 0 {
		t.Errorf("another organisation's feed = %d %s", r.Status, r.Body)
	}
}
