package api_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/svcplatform/svc/api/apitest"
)

// TestScreeningHitResolution: a reviewer (key bound to a user) resolves a hit once; a false
// positive on a customer's screening is suppressed in the next screening of that customer,
// until the entity's list record changes; unbound keys, other organisations, unknown hits
// and bad bodies are refused as the contract says.
func TestScreeningHitResolution(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	list := newScreeningList(t, h, h.AdminKey)
	cus := h.Do("POST", "/api/customers", h.AdminKey, map[string]any{"type": "person", "fullName": "Sergei Petrov", "birthDate": "1970-03-04"})
	if cus.Status != http.StatusCreated {
		t.Fatalf("customer: %d %s", cus.Status, cus.Body)
	}
	cusID := cus.Data()["id"].(string)
	screen := func() map[string]any {
		t.Helper()
		r := h.Do("POST", "/api/screenings", h.AdminKey, map[string]any{"fullName": "Sergei Petrov", "birthDate": "1970-03-04", "customerId": cusID})
		if r.Status != http.StatusCreated {
			t.Fatalf("screening: %d %s", r.Status, r.Body)
		}
		return r.Data()
	}
	first := screen()
	hits := first["hits"].([]any)
	if first["status"] != "potential_match" || len(hits) != 1 || hits[0].(map[string]any)["decision"] != "unresolved" {
		t.Fatalf("first screening = %v", first)
	}
	path := "/api/screenings/" + first["id"].(string) + "/hits/" + hits[0].(map[string]any)["id"].(string) + "/resolve"

	unbound := h.Key("screenings:write", "screenings:view")
	if r := h.Do("POST", path, unbound, map[string]any{"decision": "false_positive"}); r.Status != http.StatusUnprocessableEntity || r.Error() != "api_key_not_bound_to_user" {
		t.Errorf("unbound key: %d %s", r.Status, r.Body)
	}
	other := h.NewTenant("other")
	if r := h.Do("POST", path, other.Key, map[string]any{"decision": "false_positive"}); r.Status != http.StatusNotFound {
		t.Errorf("other organisation: %d %s", r.Status, r.Body)
	}
	if r := h.Do("POST", "/api/screenings/"+first["id"].(string)+"/hits/hit_99/resolve", h.AdminKey, map[string]any{"decision": "true_match"}); r.Status != http.StatusNotFound {
		t.Errorf("unknown hit: %d %s", r.Status, r.Body)
	}
	for name, body := range map[string]map[string]any{
		"decision": {"decision": "maybe"},
		"comment":  {"decision": "true_match", "comment": "a\u0007b"},
	} {
		r := h.Do("POST", path, h.AdminKey, body)
		fe, _ := r.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)
		if r.Status != http.StatusBadRequest || fe[name] == nil {
			t.Errorf("bad %s: %d %s", name, r.Status, r.Body)
		}
	}
	if r := h.Do("POST", "/api/screenings", h.AdminKey, map[string]any{"fullName": "X Y", "customerId": "cus_elsewhere"}); r.Status != http.StatusNotFound {
		t.Errorf("unknown customer: %d %s", r.Status, r.Body)
	}

	r := h.Do("POST", path, h.AdminKey, map[string]any{"decision": "false_positive", "comment": "different person, checked passport"})
	hit := r.Data()["hits"].([]any)[0].(map[string]any)
	if r.Status != http.StatusOK || hit["decision"] != "false_positive" || hit["resolvedBy"] != h.Admin.ID || hit["resolvedAt"] == nil {
		t.Fatalf("resolve: %d %s", r.Status, r.Body)
	}
	if again := h.Do("POST", path, h.AdminKey, map[string]any{"decision": "true_match"}); again.Status != http.StatusConflict ||
		again.Error() != "state conflict: cannot transition false_positive → true_match" {
		t.Errorf("second decision: %d %s", again.Status, again.Body)
	}
	audit := h.Do("GET", "/api/audit-logs?limit=100", h.AdminKey, nil)
	if audit.Status == http.StatusOK && !bytes.Contains(audit.Body, []byte("/resolve")) {
		t.Errorf("the resolution is not in the audit log: %s", audit.Body)
	}

	// The same customer and entity again: suppressed, so clear, the hit kept for the record.
	second := screen()
	sh := second["hits"].([]any)
	if second["status"] != "clear" || second["hitCount"].(float64) != 0 || len(sh) != 1 || sh[0].(map[string]any)["suppressed"] != true {
		t.Fatalf("second screening = %v", second)
	}
	// A name screened without the customer is not suppressed.
	if r := h.Do("POST", "/api/screenings", h.AdminKey, map[string]any{"fullName": "Sergei Petrov", "birthDate": "1970-03-04"}); r.Data()["status"] != "potential_match" {
		t.Errorf("without customer: %v", r.Data())
	}

	// The entity's record changes (a new alias): a new version, and the hit is back.
	put := h.Do("PUT", "/api/screening-lists/"+list+"/entries/e1", h.AdminKey, map[string]any{"id": "e1", "type": "person",
		"name": "Sergei Ivanovich Petrov", "aliases": []string{"Сергей Петров", "Serge Petrov"}, "birthDates": []string{"1970-03-04"}, "countries": []string{"RU"}})
	if put.Status != http.StatusOK || put.Data()["version"].(float64) != 2 {
		t.Fatalf("put entry: %d %s", put.Status, put.Body)
	}
	if third := screen(); third["status"] != "potential_match" || third["hitCount"].(float64) != 1 {
		t.Errorf("after the record changed = %v", third)
	}
}

// TestScreeningListEntries: entries are added, changed and removed one by one, or replaced by
// a CSV upload, each change a new version only when the content changed; a platform list or
// another organisation's list cannot be changed.
func TestScreeningListEntries(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	list := newScreeningList(t, h, h.AdminKey)
	base := "/api/screening-lists/" + list

	add := h.Do("PUT", base+"/entries/e4", h.AdminKey, map[string]any{"type": "person", "name": "Nguyễn Văn An", "birthDates": []string{"1980"}})
	if add.Status != http.StatusOK || add.Data()["version"].(float64) != 2 || add.Data()["entityCount"].(float64) != 4 {
		t.Fatalf("add: %d %s", add.Status, add.Body)
	}
	if r := h.Do("POST", "/api/screenings", h.AdminKey, map[string]any{"fullName": "Nguyen Van An", "lists": []string{list}}); r.Data()["status"] != "potential_match" {
		t.Errorf("the added entry is not screened: %v", r.Data())
	}
	same := h.Do("PUT", base+"/entries/e4", h.AdminKey, map[string]any{"type": "person", "name": "Nguyễn Văn An", "birthDates": []string{"1980"}})
	if same.Status != http.StatusOK || same.Data()["version"].(float64) != 2 {
		t.Errorf("unchanged entry made a version: %d %s", same.Status, same.Body)
	}
	del := h.Do("DELETE", base+"/entries/e4", h.AdminKey, nil)
	if del.Status != http.StatusOK || del.Data()["version"].(float64) != 3 || del.Data()["entityCount"].(float64) != 3 {
		t.Errorf("delete: %d %s", del.Status, del.Body)
	}
	if r := h.Do("DELETE", base+"/entries/e4", h.AdminKey, nil); r.Status != http.StatusNotFound {
		t.Errorf("delete twice: %d %s", r.Status, r.Body)
	}
	bad := h.Do("PUT", base+"/entries/e5", h.AdminKey, map[string]any{"id": "e6", "name": "", "birthDates": []string{"yesterday"}})
	fe, _ := bad.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)
	if bad.Status != http.StatusBadRequest || fe["id"] == nil || fe["name"] == nil || fe["birthDates[0]"] == nil {
		t.Errorf("bad entry: %d %s", bad.Status, bad.Body)
	}
	other := h.NewTenant("other")
	if r := h.Do("PUT", base+"/entries/e9", other.Key, map[string]any{"name": "X Y"}); r.Status != http.StatusNotFound {
		t.Errorf("other organisation: %d %s", r.Status, r.Body)
	}

	upload := func(csv string) *apitest.Response {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		fw, _ := mw.CreateFormFile("file", "list.csv")
		_, _ = fw.Write([]byte(csv))
		_ = mw.Close()
		return h.Send(apitest.Request{Method: "POST", Path: base + "/upload", Key: h.AdminKey, Body: b.Bytes(),
			Header: http.Header{"Content-Type": {mw.FormDataContentType()}}})
	}
	up := upload("id,type,name,aliases,birthDates,countries\nu1,person,Juan Carlos Pérez García,,1975-01-02,ES\nu2,organisation,PT Maju Jaya Tbk,,,ID\n")
	if up.Status != http.StatusOK || up.Data()["version"].(float64) != 4 || up.Data()["entityCount"].(float64) != 2 {
		t.Fatalf("upload: %d %s", up.Status, up.Body)
	}
	if r := h.Do("POST", "/api/screenings", h.AdminKey, map[string]any{"fullName": "Juan Perez", "birthDate": "1975-01-02", "lists": []string{list}}); r.Data()["status"] != "potential_match" {
		t.Errorf("uploaded entry not screened: %v", r.Data())
	}
	broken := upload("id,type,name\n\"u1,person,Broken\n")
	if fe, _ := broken.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any); broken.Status != http.StatusBadRequest || fe["file"] == nil {
		t.Errorf("broken upload: %d %s", broken.Status, broken.Body)
	}
	lists := h.Do("GET", "/api/screening-lists", h.AdminKey, nil)
	if rows, _ := lists.JSON["data"].([]any); lists.Status != http.StatusOK || len(rows) != 1 || rows[0].(map[string]any)["version"].(float64) != 4 {
		t.Errorf("lists: %d %s", lists.Status, lists.Body)
	}
}

// TestScreeningSettingsThreshold: the organisation's threshold applies when a screening names
// none, a request's own threshold wins, and null returns to the configured default.
func TestScreeningSettingsThreshold(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	list := newScreeningList(t, h, h.AdminKey)
	screen := func(body map[string]any) map[string]any {
		t.Helper()
		body["lists"] = []string{list}
		r := h.Do("POST", "/api/screenings", h.AdminKey, body)
		if r.Status != http.StatusCreated {
			t.Fatalf("screening: %d %s", r.Status, r.Body)
		}
		return r.Data()
	}
	if d := screen(map[string]any{"fullName": "Sergei Petrov"}); d["threshold"].(float64) != 0.8 || d["status"] != "potential_match" {
		t.Fatalf("default = %v", d)
	}
	if r := h.Do("PUT", "/api/screening-settings", h.AdminKey, map[string]any{"threshold": 1.5}); r.Status != http.StatusBadRequest {
		t.Errorf("bad threshold: %d %s", r.Status, r.Body)
	}
	r := h.Do("PUT", "/api/screening-settings", h.AdminKey, map[string]any{"threshold": 0.99})
	if r.Status != http.StatusOK || r.Data()["threshold"].(float64) != 0.99 || r.Data()["organisationThreshold"].(float64) != 0.99 {
		t.Fatalf("put: %d %s", r.Status, r.Body)
	}
	if d := screen(map[string]any{"fullName": "Sergei Petrov"}); d["threshold"].(float64) != 0.99 || d["status"] != "clear" {
		t.Errorf("with the organisation's threshold = %v", d)
	}
	if d := screen(map[string]any{"fullName": "Sergei Petrov", "threshold": 0.8}); d["status"] != "potential_match" {
		t.Errorf("the request's threshold does not win: %v", d)
	}
	if other := h.NewTenant("other"); h.Do("GET", "/api/screening-settings", other.Key, nil).Data()["threshold"].(float64) != 0.8 {
		t.Errorf("another organisation sees this one's threshold")
	}
	back := h.Do("PUT", "/api/screening-settings", h.AdminKey, map[string]any{"threshold": nil})
	if back.Status != http.StatusOK || back.Data()["threshold"].(float64) != 0.8 || back.Data()["organisationThreshold"] != nil {
		t.Errorf("null: %d %s", back.Status, back.Body)
	}
}
