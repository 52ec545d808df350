package screening_test

import (
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/screening"
)

func TestCheckInput(t *testing.T) {
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	bad := map[string]func(screening.FieldErrors){
		"empty":      func(f screening.FieldErrors) { screening.CheckName(f, "fullName", "  ") },
		"long":       func(f screening.FieldErrors) { screening.CheckName(f, "fullName", strings.Repeat("a", 10000)) },
		"control":    func(f screening.FieldErrors) { screening.CheckName(f, "fullName", "John\x07Smith") },
		"no letters": func(f screening.FieldErrors) { screening.CheckName(f, "fullName", "!!! ---") },
		"bad utf8":   func(f screening.FieldErrors) { screening.CheckName(f, "fullName", "a\xffb") },
		"date":       func(f screening.FieldErrors) { screening.CheckBirthDate(f, "birthDate", "31/12/1960", now) },
		"no day":     func(f screening.FieldErrors) { screening.CheckBirthDate(f, "birthDate", "1960-02-30", now) },
		"future":     func(f screening.FieldErrors) { screening.CheckBirthDate(f, "birthDate", "2027", now) },
		"country":    func(f screening.FieldErrors) { screening.CheckCountry(f, "country", "Atlantis") },
		"type":       func(f screening.FieldErrors) { screening.CheckEntityType(f, "entityType", "robot") },
		"threshold": func(f screening.FieldErrors) {
			v := 1.5
			screening.CheckThreshold(f, "threshold", &v)
		},
	}
	for name, check := range bad {
		f := screening.FieldErrors{}
		check(f)
		if len(f) != 1 {
			t.Errorf("%s: field errors %v, want one field", name, f)
		}
	}
	f := screening.FieldErrors{}
	screening.CheckName(f, "fullName", "José García")
	d := screening.CheckBirthDate(f, "birthDate", "1960-05", now)
	c := screening.CheckCountry(f, "country", "MX")
	if len(f) != 0 || d == nil || *d != (screening.Date{Year: 1960, Month: 5}) || c != "mx" {
		t.Errorf("good input: %v %v %q", f, d, c)
	}
}

func TestSuppressionsFollowEntityRecord(t *testing.T) {
	e := screening.Entity{ID: "e1", Type: screening.Person, Name: "John Smith"}
	hit := screening.Hit{ListID: "l1", EntityID: "e1", Entity: &e}
	s := screening.Suppressions{screening.SuppressionKey("cus_1", "l1", "e1"): {CustomerID: "cus_1", ListID: "l1", EntityID: "e1", EntityHash: screening.EntityHash(&e)}}
	if keep, sup := s.Filter("cus_1", []screening.Hit{hit}); len(keep) != 0 || len(sup) != 1 {
		t.Errorf("unchanged entity not suppressed: keep=%d suppressed=%d", len(keep), len(sup))
	}
	if keep, _ := s.Filter("cus_2", []screening.Hit{hit}); len(keep) != 1 {
		t.Error("another customer's false positive suppressed this one")
	}
	changed := e
	changed.Aliases = []string{"Johnny Smith"}
	hit.Entity = &changed
	if keep, _ := s.Filter("cus_1", []screening.Hit{hit}); len(keep) != 1 {
		t.Error("a changed entity record stayed suppressed")
	}
	if !screening.FalsePositive.Valid() || screening.Decision("maybe").Valid() {
		t.Error("decision validity")
	}
}

func TestDeltaEntities(t *testing.T) {
	cur := []screening.Entity{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	got := screening.DeltaEntities(cur, screening.Delta{Added: []string{"c"}, Changed: []string{"a"}, Removed: []string{"z"}})
	if len(got) != 2 || got[0].ID != "a" || got[1].ID != "c" {
		t.Errorf("delta entities = %+v", got)
	}
}

func TestCatalogMergesLists(t *testing.T) {
	c := screening.NewCatalog()
	c.Put(screening.NewIndex("b", []screening.Entity{{ID: "1", Type: screening.Person, Name: "John Smith"}}))
	c.Put(screening.NewIndex("a", []screening.Entity{{ID: "9", Type: screening.Person, Name: "John Smith"}, {ID: "8", Type: screening.Person, Name: "Jon Smith"}}))
	hits := c.Search(screening.Query{Name: "John Smith"}, nil)
	if len(hits) != 3 || hits[0].ListID != "a" || hits[1].ListID != "b" || hits[2].EntityID != "8" {
		t.Fatalf("hits = %+v", hits)
	}
	if hits := c.Search(screening.Query{Name: "John Smith"}, []string{"b"}); len(hits) != 1 || hits[0].ListID != "b" {
		t.Errorf("one list: %+v", hits)
	}
	if _, ok := screening.ParseFormat("ofac"); !ok {
		t.Error("ofac format unknown")
	}
	if _, err := screening.Load("pdf", strings.NewReader(""), nil); err == nil {
		t.Error("unknown format loaded")
	}
}
