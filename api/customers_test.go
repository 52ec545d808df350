package api_test

import (
	"fmt"
	"testing"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
)

// TestCustomers: the shared customer resource through the API (every answer is also checked
// against openapi.yaml by the harness).
func TestCustomers(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	body := map[string]any{
		"type": "person", "fullName": "  Budi Santoso ", "birthDate": "1980-02-29", "nationality": "ID", "country": "ID",
		"identifiers": []any{map[string]any{"type": "national_id", "value": "3171234567890001", "country": "ID"}},
		"monitoring":  true, "externalId": "crm-1",
	}
	first := h.Do("POST", "/api/customers", h.AdminKey, body)
	wantStatus(t, first, 201)
	c := first.Data()
	id := str(c, "id")
	if c["fullName"] != "Budi Santoso" || c["status"] != "active" || c["monitoring"] != true || c["birthDate"] != "1980-02-29" ||
		c["externalId"] != "crm-1" || len(c["identifiers"].([]any)) != 1 || id[:4] != "cus_" {
		t.Fatalf("created %v", c)
	}
	again := h.Do("POST", "/api/customers", h.AdminKey, body)
	wantStatus(t, again, 201)
	if again.JSON["idempotent"] != true || str(again.Data(), "id") != id {
		t.Fatalf("replay %s", again.Body)
	}

	t.Run("bad input names every field", func(t *testing.T) {
		res := h.Do("POST", "/api/customers", h.AdminKey, map[string]any{
			"type": "robot", "birthDate": "2999-01-01", "nationality": "id", "country": "IDN",
			"identifiers": []any{map[string]any{"type": "", "value": ""}},
		})
		wantStatus(t, res, 400)
		fields, _ := res.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)
		for _, f := range []string{"type", "fullName", "birthDate", "nationality", "country", "identifiers[0].type", "identifiers[0].value"} {
			if fields[f] == nil {
				t.Errorf("no field error for %s: %s", f, res.Body)
			}
		}
		wantStatus(t, h.Do("POST", "/api/customers", h.AdminKey, `{"type": "person", "fullName": 7}`), 400)
		wantStatus(t, h.Do("POST", "/api/customers", h.AdminKey, `{"type": "person",`), 400)
		wantStatus(t, h.Do("POST", "/api/customers", h.AdminKey, map[string]any{"type": "person", "fullName": "A", "monitoring": "yes"}), 400)
	})

	t.Run("get, and another organisation's is not found", func(t *testing.T) {
		res := h.Do("GET", "/api/customers/"+id, h.AdminKey, nil)
		wantStatus(t, res, 200)
		if res.Data()["fullName"] != "Budi Santoso" {
			t.Fatalf("get %s", res.Body)
		}
		other := h.NewTenant("Other")
		wantExactError(t, h.Do("GET", "/api/customers/"+id, other.Key, nil), 404, api.MsgNotFound)
		wantExactError(t, h.Do("PATCH", "/api/customers/"+id, other.Key, map[string]any{"monitoring": false}), 404, api.MsgNotFound)
	})

	t.Run("patch changes what is present, null clears", func(t *testing.T) {
		res := h.Do("PATCH", "/api/customers/"+id, h.AdminKey, map[string]any{"monitoring": false, "birthDate": nil, "status": "inactive"})
		wantStatus(t, res, 200)
		d := res.Data()
		if d["monitoring"] != false || d["birthDate"] != nil || d["status"] != "inactive" || d["fullName"] != "Budi Santoso" || d["nationality"] != "ID" {
			t.Fatalf("patched %v", d)
		}
		wantStatus(t, h.Do("PATCH", "/api/customers/"+id, h.AdminKey, map[string]any{"status": "closed"}), 400)
		wantStatus(t, h.Do("PATCH", "/api/customers/"+id, h.AdminKey, map[string]any{"fullName": ""}), 400)
		if got := h.Do("GET", "/api/customers/"+id, h.AdminKey, nil).Data(); got["status"] != "inactive" || got["fullName"] != "Budi Santoso" {
			t.Fatalf("a refused patch changed the customer: %v", got)
		}
		back := h.Do("PATCH", "/api/customers/"+id, h.AdminKey, map[string]any{"status": "active"})
		wantStatus(t, back, 200)
		if back.Data()["status"] != "active" {
			t.Fatalf("reactivated %s", back.Body)
		}
	})

	t.Run("list filters", func(t *testing.T) {
		for i := range 3 {
			wantStatus(t, h.Do("POST", "/api/customers", h.AdminKey, map[string]any{"type": "organisation", "fullName": fmt.Sprintf("PT Maju Jaya %d", i)}), 201)
		}
		res := h.Do("GET", "/api/customers?q=maju-jaya&summary=true", h.AdminKey, nil)
		wantStatus(t, res, 200)
		if res.JSON["total"] != 0.0 {
			t.Errorf("q=maju-jaya matched %v", res.JSON["total"])
		}
		res = h.Do("GET", "/api/customers?q=maju%20jaya&summary=true", h.AdminKey, nil)
		if res.JSON["total"] != 3.0 || res.JSON["summary"].(map[string]any)["active"] != 3.0 || res.JSON["summary"].(map[string]any)["inactive"] != 0.0 {
			t.Errorf("q=maju jaya: %s", res.Body)
		}
		res = h.Do("GET", "/api/customers?externalId=crm-1", h.AdminKey, nil)
		if rows := res.JSON["data"].([]any); len(rows) != 1 || rows[0].(map[string]any)["id"] != id {
			t.Errorf("externalId=crm-1: %s", res.Body)
		}
		wantStatus(t, h.Do("GET", "/api/customers?status=closed", h.AdminKey, nil), 400)
		if res := h.Do("GET", "/api/customers?status=active", h.AdminKey, nil); res.JSON["total"] != 4.0 {
			t.Errorf("status=active: %v", res.JSON["total"])
		}
	})
}
