package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/svcplatform/svc/api/apitest"
)

// newScreeningList creates an organisation list through the API and returns its id.
func newScreeningList(t *testing.T, h *apitest.Harness, key string) string {
	t.Helper()
	r := h.Do("POST", "/api/screening-lists", key, map[string]any{"name": "watch list", "entries": []map[string]any{
		{"id": "e1", "type": "person", "name": "Sergei Ivanovich Petrov", "aliases": []string{"Сергей Петров"}, "birthDates": []string{"1970-03-04"}, "countries": []string{"RU"}},
		{"id": "e2", "type": "organisation", "name": "Golden Star Trading LLC", "countries": []string{"United Arab Emirates"}},
		{"id": "e3", "type": "person", "name": "Mohammed Ahmed Al-Masri", "birthDates": []string{"1965"}},
	}})
	if r.Status != http.StatusCreated {
		t.Fatalf("create list: %d %s", r.Status, r.Body)
	}
	d := r.Data()
	if d["version"].(float64) != 1 || d["entityCount"].(float64) != 3 || d["kind"] != "organisation" {
		t.Fatalf("list = %v", d)
	}
	return d["id"].(string)
}

func TestScreeningFindsAndExplains(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	list := newScreeningList(t, h, h.AdminKey)

	r := h.Do("POST", "/api/screenings", h.AdminKey, map[string]any{"fullName": "Petrov Sergey", "birthDate": "1970", "lists": []string{list}, "externalId": "s-1"})
	if r.Status != http.StatusCreated {
		t.Fatalf("screening: %d %s", r.Status, r.Body)
	}
	d := r.Data()
	hits := d["hits"].([]any)
	if d["status"] != "potential_match" || len(hits) != 1 || !strings.HasPrefix(d["id"].(string), "scr_") {
		t.Fatalf("screening = %v", d)
	}
	hit := hits[0].(map[string]any)
	ex := hit["explanation"].(map[string]any)
	if hit["entityId"] != "e1" || hit["listId"] != list || ex["birthDate"].(map[string]any)["result"] != "year" || hit["score"].(float64) < 0.8 {
		t.Errorf("hit = %v", hit)
	}

	// A replay answers the original screening.
	again := h.Do("POST", "/api/screenings", h.AdminKey, map[string]any{"fullName": "Petrov Sergey", "birthDate": "1970", "lists": []string{list}, "externalId": "s-1"})
	if again.Status != http.StatusCreated || again.JSON["idempotent"] != true || again.Data()["id"] != d["id"] {
		t.Errorf("replay: %d %v", again.Status, again.JSON)
	}

	// The same name with another birth date, and an unlisted name, are clear.
	for _, body := range []map[string]any{
		{"fullName": "Sergei Petrov", "birthDate": "1990-01-01"},
		{"fullName": "Jane Doe"},
		{"fullName": "Golden Star Trading", "entityType": "person"},
	} {
		r := h.Do("POST", "/api/screenings", h.AdminKey, body)
		if r.Status != http.StatusCreated || r.Data()["status"] != "clear" {
			t.Errorf("%v: %d %v", body, r.Status, r.Data())
		}
	}
	org := h.Do("POST", "/api/screenings", h.AdminKey, map[string]any{"fullName": "Golden Star Trading", "country": "AE", "threshold": 0.9})
	if org.Status != http.StatusCreated || org.Data()["hitCount"].(float64) != 1 {
		t.Errorf("organisation: %d %v", org.Status, org.Data())
	}

	one := h.Do("GET", "/api/screenings/"+d["id"].(string), h.AdminKey, nil)
	if one.Status != http.StatusOK || one.Data()["id"] != d["id"] {
		t.Errorf("get: %d %s", one.Status, one.Body)
	}
	feed := h.Do("GET", "/api/screenings?limit=2&status=potential_match", h.AdminKey, nil)
	if feed.Status != http.StatusOK || len(feed.JSON["rows"].([]any)) != 2 {
		t.Errorf("feed: %d %s", feed.Status, feed.Body)
	}
	lists := h.Do("GET", "/api/screening-lists", h.AdminKey, nil)
	if lists.Status != http.StatusOK || len(lists.JSON["data"].([]any)) != 1 {
		t.Errorf("lists: %d %s", lists.Status, lists.Body)
	}
}

func TestScreeningBadInput(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	newScreeningList(t, h, h.AdminKey)
	cases := map[string]struct {
		body  map[string]any
		field string
	}{
		"empty name":    {map[string]any{"fullName": ""}, "fullName"},
		"long name":     {map[string]any{"fullName": strings.Repeat("a", 10000)}, "fullName"},
		"control":       {map[string]any{"fullName": "John\u0000Smith"}, "fullName"},
		"date":          {map[string]any{"fullName": "John Smith", "birthDate": "31/12/1960"}, "birthDate"},
		"impossible":    {map[string]any{"fullName": "John Smith", "birthDate": "1960-02-30"}, "birthDate"},
		"unknown list":  {map[string]any{"fullName": "John Smith", "lists": []string{"lst_nope"}}, "lists[0]"},
		"country":       {map[string]any{"fullName": "John Smith", "country": "Atlantis"}, "country"},
		"type":          {map[string]any{"fullName": "John Smith", "entityType": "robot"}, "entityType"},
		"threshold":     {map[string]any{"fullName": "John Smith", "threshold": 2}, "threshold"},
		"unknown field": {map[string]any{"fullName": "John Smith", "dob": "1960"}, "dob"},
	}
	for name, c := range cases {
		r := h.Do("POST", "/api/screenings", h.AdminKey, c.body)
		fe, _ := r.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)
		if r.Status != http.StatusBadRequest || fe[c.field] == nil {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	bad := h.Do("POST", "/api/screening-lists", h.AdminKey, map[string]any{"name": "x", "entries": []map[string]any{
		{"id": "a", "name": ""}, {"id": "a", "name": "B", "birthDates": []string{"soon"}}}})
	fe, _ := bad.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)
	if bad.Status != http.StatusBadRequest || fe["entries[0].name"] == nil || fe["entries[1].id"] == nil || fe["entries[1].birthDates[0]"] == nil {
		t.Errorf("bad list: %d %s", bad.Status, bad.Body)
	}

	// Another organisation neither sees the list nor screens against it.
	other := h.NewTenant("other")
	r := h.Do("POST", "/api/screenings", other.Key, map[string]any{"fullName": "Sergei Petrov"})
	if r.Status != http.StatusCreated || r.Data()["status"] != "clear" || len(r.Data()["lists"].([]any)) != 0 {
		t.Errorf("other organisation: %d %s", r.Status, r.Body)
	}
}
