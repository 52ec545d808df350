package e2e

import (
	"context"
	"reflect"
	"testing"
	"time"

	it "github.com/svcplatform/svc/internal/identity/identitytest"
	"github.com/svcplatform/svc/store"
)

// TestIdentityScreensWithAServiceKey: on the real dev stack, a verification whose policy
// requires screening screens the person through the screening product's API with the service
// principal key the platform issued to the organisation (SPEC 5.6): a listed person ends in
// review with screening_match, a clean one verified. The audit log names the calling service;
// the key is listed, marked as a service key, and cannot be changed or rotated by the
// organisation; a revoked service key is replaced at the next need; an organisation without
// the screening product gets no key and no screening.
func TestIdentityScreensWithAServiceKey(t *testing.T) {
	s := boot(t, t.TempDir(), bootOptions{})
	admin := client{t: t, base: s.BaseURL, key: s.Credentials.APIKey}
	const within = 3 * time.Minute
	if r := admin.do("POST", "/api/screening-lists", map[string]any{"name": "watch list", "entries": []map[string]any{
		{"id": "w1", "type": "person", "name": "Siti Rahayu", "birthDates": []string{"1990-06-05"}},
	}}); r.Status != 201 {
		t.Fatalf("screening list = %d %s", r.Status, r.Raw)
	}
	policy := map[string]any{"documentTypes": []string{"ktp", "passport"}, "requireScreening": true}
	verify := func(c client, claimed map[string]any, doc []byte) map[string]any {
		t.Helper()
		r := c.do("POST", "/api/identity/verifications", map[string]any{"claimed": claimed, "policy": policy, "customerId": "own-ref-7"})
		if r.Status != 201 {
			t.Fatalf("POST verification = %d %s", r.Status, r.Raw)
		}
		id := str(r.data(t)["id"])
		if r := submitImages(c, id, doc, nil); r.Status != 202 {
			t.Fatalf("attempt = %d %s", r.Status, r.Raw)
		}
		return verificationIn(t, c, id, within, "verified", "rejected", "review", "resubmission_requested")
	}
	screeningCheck := func(d map[string]any) map[string]any {
		t.Helper()
		atts := d["attempts"].([]any)
		for _, c := range atts[len(atts)-1].(map[string]any)["checks"].([]any) {
			if m := c.(map[string]any); m["type"] == "screening" {
				return m
			}
		}
		t.Fatalf("no screening check in %v", d)
		return nil
	}
	serviceKeys := func(c client) []map[string]any {
		t.Helper()
		r := c.do("GET", "/api/api-keys?limit=100", nil)
		if r.Status != 200 {
			t.Fatalf("GET /api/api-keys = %d %s", r.Status, r.Raw)
		}
		var out []map[string]any
		for _, row := range r.Body["data"].([]any) {
			if m := row.(map[string]any); m["callerServiceSlug"] != nil {
				out = append(out, m)
			}
		}
		return out
	}

	listed := verify(admin, map[string]any{"fullName": "Siti Rahayu", "birthDate": "1990-06-05", "nationality": "IDN"}, it.TextPDF(t, it.KTP().Layout()))
	if listed["status"] != "review" || !reflect.DeepEqual(reasonsOf(listed), []string{"screening_match"}) {
		t.Fatalf("listed person: %s %v, want review [screening_match]\n%v", listed["status"], reasonsOf(listed), listed["attempts"])
	}
	sc := screeningCheck(listed)
	screeningID := str(sc["screeningId"])
	if sc["status"] != "failed" || screeningID == "" || screeningID == "<nil>" {
		t.Errorf("screening check %v", sc)
	}
	if r := admin.do("GET", "/api/screenings/"+screeningID, nil); r.Status != 200 || r.data(t)["status"] != "potential_match" {
		t.Errorf("the identity product's screening = %d %s", r.Status, r.Raw)
	}

	// The key: issued once, marked, only the scope the call needs, never shown or changeable.
	keys := serviceKeys(admin)
	if len(keys) != 1 {
		t.Fatalf("service keys %v, want one", keys)
	}
	k := keys[0]
	keyID := str(k["id"])
	if k["callerServiceSlug"] != "identity" || !reflect.DeepEqual(k["scopes"], []any{"screenings:write"}) || k["status"] != "active" ||
		k["actAsUserId"] != nil || k["key"] != nil {
		t.Errorf("service key %v", k)
	}
	if r := admin.do("PATCH", "/api/api-keys/"+keyID, map[string]any{"scopes": []string{"write"}}); r.Status != 422 {
		t.Errorf("PATCH service key = %d %s", r.Status, r.Raw)
	}
	if r := admin.do("POST", "/api/api-keys/"+keyID+"/rotate", nil); r.Status != 422 {
		t.Errorf("rotate service key = %d %s", r.Status, r.Raw)
	}

	// The audit log names the calling service on the screening it wrote.
	found, issued := false, false
	for _, row := range admin.do("GET", "/api/audit-logs?limit=200", nil).Body["rows"].([]any) {
		m := row.(map[string]any)
		if m["action"] == store.AuditServiceKeyIssued && m["resourceId"] == keyID && m["callerServiceSlug"] == "identity" {
			issued = true
		}
		if m["action"] == "POST /api/screenings" && m["resourceId"] == screeningID {
			found = m["callerServiceSlug"] == "identity" && m["apiKeyId"] == keyID && m["userId"] == nil
			if !found {
				t.Errorf("audit row of the screening %v", m)
			}
		}
	}
	if !found {
		t.Error("no audit row of the identity product's screening")
	}
	if !issued {
		t.Error("no audit row of the platform issuing the service key")
	}

	// Revoked by the organisation, the key is refused from now on; the next screening gets a successor.
	if r := admin.do("DELETE", "/api/api-keys/"+keyID, nil); r.Status != 200 || r.data(t)["status"] != "revoked" {
		t.Fatalf("revoke service key = %d %s", r.Status, r.Raw)
	}
	clean := verify(admin, map[string]any{"fullName": "Budi Santoso", "birthDate": "1985-03-12", "documentNumber": "C4821937"},
		it.TextPDF(t, it.PassportLayout(t, it.Passport())))
	if clean["status"] != "verified" || len(reasonsOf(clean)) != 0 {
		t.Fatalf("clean person: %s %v, want verified\n%v", clean["status"], reasonsOf(clean), clean["attempts"])
	}
	if sc := screeningCheck(clean); sc["status"] != "passed" || sc["screeningId"] == nil {
		t.Errorf("clean screening check %v", sc)
	}
	keys = serviceKeys(admin)
	active := 0
	for _, k := range keys {
		if k["status"] == "active" {
			active++
			if k["id"] == keyID {
				t.Error("the revoked key is active again")
			}
		}
	}
	if len(keys) != 2 || active != 1 {
		t.Errorf("after revocation: service keys %v, want the revoked one and one active successor", keys)
	}

	// Removing the screening product disconnects at once: the service key is revoked.
	if r := admin.do("PUT", "/api/organization/capabilities", map[string]any{"capabilities": []string{"identity", "cases", "webhooks"}}); r.Status != 200 {
		t.Fatalf("PUT capabilities = %d %s", r.Status, r.Raw)
	}
	for _, k := range serviceKeys(admin) {
		if k["status"] != "revoked" {
			t.Errorf("service key after screening was removed: %v", k)
		}
	}

	// An organisation with identity but not screening: no key is issued, no screening runs.
	res, err := s.App.Store.Orgs.Bootstrap(context.Background(), store.BootstrapInput{OrgName: "identity only", DefaultUser: true,
		Environment: s.App.Config.Environment, Scopes: []string{"write", "api:manage"}, Capabilities: []string{"identity"}})
	if err != nil {
		t.Fatal(err)
	}
	solo := client{t: t, base: s.BaseURL, key: res.Secret}
	d := verify(solo, map[string]any{"fullName": "Siti Rahayu", "birthDate": "1990-06-05"}, it.TextPDF(t, it.KTP().Layout()))
	if d["status"] != "review" || !reflect.DeepEqual(reasonsOf(d), []string{"screening_unavailable"}) {
		t.Errorf("without the screening product: %s %v, want review [screening_unavailable]", d["status"], reasonsOf(d))
	}
	if keys := serviceKeys(solo); len(keys) != 0 {
		t.Errorf("service keys issued to an organisation without screening: %v", keys)
	}
}
