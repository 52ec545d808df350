package screening_test

import (
	"testing"

	"github.com/svcplatform/svc/internal/screening"
)

func testIndex() *screening.Index {
	return screening.NewIndex("test", []screening.Entity{
		{ID: "p1", Type: screening.Person, Name: "Mohammed Ahmed Al-Masri", Aliases: []string{"محمد أحمد المصري"},
			BirthDates: []screening.Date{{Year: 1965, Month: 3, Day: 14}}, Countries: []string{"eg"}},
		{ID: "p2", Type: screening.Person, Name: "Sergei Ivanovich Petrov", Aliases: []string{"Сергей Иванович Петров"},
			BirthDates: []screening.Date{{Year: 1970}}},
		{ID: "p3", Type: screening.Person, Name: "Zhang Xiaoming"},
		{ID: "o1", Type: screening.Organization, Name: "Golden Star Trading LLC", Countries: []string{"ae"}},
		{ID: "o2", Type: screening.Organization, Name: "OOO Sever Neft", Aliases: []string{"ООО «Север Нефть»"}},
		{ID: "p4", Type: screening.Person, Name: "John Smith", BirthDates: []screening.Date{{Year: 1980, Month: 1, Day: 2}}},
	})
}

func top(t *testing.T, ix *screening.Index, q screening.Query) *screening.Hit {
	t.Helper()
	hits := ix.Search(q)
	if len(hits) == 0 {
		return nil
	}
	return &hits[0]
}

func TestSearchFindsVariants(t *testing.T) {
	ix := testIndex()
	cases := map[string]string{
		"Al-Masri Mohammed Ahmed":      "p1", // order
		"Muhammad Ahmad Almasri":       "p1", // transliteration, glued particle
		"محمد المصري":                  "p1", // Arabic script, missing middle name
		"M. Ahmed Al-Masri":            "p1", // initial
		"Petrov Sergey":                "p2", // order, variant, missing patronymic
		"Сергей Петров":                "p2", // Cyrillic
		"Chang Xiao Ming":              "p3", // Wade-Giles family name, split given name
		"Golden Star Trading":          "o1", // legal form left out
		"Golden Star Trading L.L.C.":   "o1",
		"Sever Neft LLC":               "o2", // legal form translated
		"John Smyth":                   "p4",
		"Jane Doe":                     "",
		"Golden Sun Shipping Ltd":      "",
		"Mohammed Hassan Al-Tikriti":   "",
		"Sergei Ivanovich Smirnov":     "",
		"Xiaoming":                     "",
		"Maria Fernanda Lopez Herrera": "",
	}
	for name, want := range cases {
		h := top(t, ix, screening.Query{Name: name})
		switch {
		case want == "" && h != nil:
			t.Errorf("%q: unexpected hit %s %q %.3f", name, h.EntityID, h.MatchedName, h.Score)
		case want != "" && (h == nil || h.EntityID != want):
			t.Errorf("%q: top hit %+v, want %s", name, h, want)
		}
	}
}

func TestQualifiers(t *testing.T) {
	ix := testIndex()
	name := screening.Query{Name: "John Smith"}
	base := top(t, ix, name)
	if base == nil || base.Explanation.BirthDate.Result != screening.ResultUnknown {
		t.Fatalf("base = %+v", base)
	}
	exact := name
	exact.BirthDate = &screening.Date{Year: 1980, Month: 1, Day: 2}
	if h := top(t, ix, exact); h == nil || h.Explanation.BirthDate.Result != screening.ResultExact || h.Score < base.Score {
		t.Errorf("exact birth date: %+v", h)
	}
	year := name
	year.BirthDate = &screening.Date{Year: 1980}
	if h := top(t, ix, year); h == nil || h.Explanation.BirthDate.Result != screening.ResultYear {
		t.Errorf("year only: %+v", h)
	}
	other := name
	other.BirthDate = &screening.Date{Year: 1955, Month: 6, Day: 1}
	if h := top(t, ix, other); h != nil {
		t.Errorf("other birth date still a hit: %+v", h)
	}
	org := name
	org.Type = screening.Organization
	if h := top(t, ix, org); h != nil {
		t.Errorf("organisation query hit a person: %+v", h)
	}
	country := screening.Query{Name: "Golden Star Trading", Country: "United Arab Emirates"}
	if h := top(t, ix, country); h == nil || h.Explanation.Country.Result != screening.ResultMatch {
		t.Errorf("country: %+v", h)
	}
}

func TestExplanationAndThreshold(t *testing.T) {
	ix := testIndex()
	h := top(t, ix, screening.Query{Name: "Sergey Petrov"})
	if h == nil {
		t.Fatal("no hit")
	}
	ex := h.Explanation
	if ex.MatchedName == "" || len(ex.Tokens) != 2 || ex.Final != h.Score || ex.NameScore <= 0 {
		t.Errorf("explanation = %+v", ex)
	}
	for _, tm := range ex.Tokens {
		if tm.Kind == "" || tm.Score <= 0 || tm.Score > 1 {
			t.Errorf("token match = %+v", tm)
		}
	}
	if hits := ix.Search(screening.Query{Name: "Sergey Petrov", Threshold: 0.999}); len(hits) != 0 {
		t.Errorf("threshold 0.999 still hits: %+v", hits)
	}
	if hits := ix.Search(screening.Query{Name: "Sergey Petrov", Threshold: 0.3}); len(hits) < 1 {
		t.Error("threshold 0.3 finds nothing")
	}
}

// A legal form with a slip in it is not an unmatched name, unless the list uses the word.
func TestMisspeltLegalForm(t *testing.T) {
	ix := screening.NewIndex("test", []screening.Entity{
		{ID: "o1", Type: screening.Organization, Name: "Golden Star Trading LLC"},
		{ID: "o2", Type: screening.Organization, Name: "Lamited Brands Group"},
		{ID: "o3", Type: screening.Organization, Name: "Brands Group Holding"},
	})
	for _, name := range []string{"Golden Star Trading Compnay", "Golden Star Trading Limted", "Golden Star Trading Corporaton", "Golden Star Trading Company"} {
		h := top(t, ix, screening.Query{Name: name})
		if h == nil || h.EntityID != "o1" || h.Score < 0.99 {
			t.Errorf("%q: top hit %+v, want o1 scoring 1", name, h)
		}
	}
	// "lamited" is a word of the list: it identifies o2 and is compared.
	if h := top(t, ix, screening.Query{Name: "Lamited Brands Group"}); h == nil || h.EntityID != "o2" || h.Score < 0.99 {
		t.Errorf("Lamited Brands Group: top hit %+v, want o2 scoring 1", h)
	}
	// People are not organisations: a person's name keeps every token.
	if h := top(t, ix, screening.Query{Name: "Golden Star Compnay", Type: screening.Person}); h != nil {
		t.Errorf("person query: unexpected hit %+v", h)
	}
	// A name that is only a slip is kept whole, not emptied.
	if h := top(t, ix, screening.Query{Name: "Compnay"}); h != nil {
		t.Errorf("Compnay: unexpected hit %+v", h)
	}
}

// A name in Persian script reads dad, zal and za as z, as Persian romanisations write them.
func TestPersianScript(t *testing.T) {
	ix := screening.NewIndex("test", []screening.Entity{
		{ID: "p1", Type: screening.Person, Name: "Reza Soleimani"},
		{ID: "p2", Type: screening.Person, Name: "Ramezan Karimi"},
		{ID: "p3", Type: screening.Person, Name: "Ramadan Khalil"},
	})
	cases := map[string]string{"رضا سلیمانی": "p1", "رمضان کریمی": "p2", "رمضان خليل": "p3"}
	for name, want := range cases {
		if h := top(t, ix, screening.Query{Name: name}); h == nil || h.EntityID != want {
			t.Errorf("%q: top hit %+v, want %s", name, h, want)
		}
	}
}
