package screening_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/internal/screening/fixtures"
)

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"José García-Márquez", "Владимир Путин", "Γιώργος", "محمد عبدالله", "ООО «Север»",
		"O'Brien, J.R.", "\x00\xff\u200c", strings.Repeat("ab ", 400), "ǅemal ﬁnance", "İstanbul ß"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := screening.Normalize(s)
		if !utf8.ValidString(n) || strings.Contains(n, "  ") || strings.TrimSpace(n) != n {
			t.Fatalf("Normalize(%q) = %q: not canonical", s, n)
		}
		if n != strings.ToLower(n) {
			t.Fatalf("Normalize(%q) = %q: not lower case", s, n)
		}
		if again := screening.Normalize(n); again != n {
			t.Fatalf("Normalize not idempotent: %q -> %q -> %q", s, n, again)
		}
		for _, typ := range []screening.EntityType{screening.Person, screening.Organization, screening.Unknown} {
			_ = screening.NameTokens(s, typ)
		}
	})
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"1960-01-02", "1960", "02 Jan 1960", "circa 1955", "1960-02-30", "31/12/1999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := screening.ParseDate(s)
		if err != nil {
			return
		}
		if again, err := screening.ParseDate(d.String()); err != nil || again != d {
			t.Fatalf("ParseDate(%q) = %v, which does not read back (%v, %v)", s, d, again, err)
		}
	})
}

// checkLoaded asserts what every loader promises on success.
func checkLoaded(t *testing.T, es []screening.Entity) {
	seen := map[string]bool{}
	for _, e := range es {
		if e.ID == "" || strings.TrimSpace(e.Name) == "" || seen[e.ID] {
			t.Fatalf("loaded entity without id or name, or duplicate: %+v", e)
		}
		seen[e.ID] = true
	}
	screening.NewIndex("fuzz", es).Search(screening.Query{Name: "a b"})
}

func fuzzList() *fixtures.List { return fixtures.Generate(5, 8) }

func FuzzLoadOFAC(f *testing.F) {
	var sdn, alt, add bytes.Buffer
	if err := fuzzList().WriteOFAC(&sdn, &alt, &add); err != nil {
		f.Fatal(err)
	}
	f.Add(sdn.Bytes(), alt.Bytes(), add.Bytes())
	f.Add([]byte("1,\"A, B\",individual,-0-,-0-,-0-,-0-,-0-,-0-,-0-,-0-,\"DOB 1 Jan 1960\"\n"), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, sdn, alt, add []byte) {
		es, err := screening.LoadOFAC(bytes.NewReader(sdn), bytes.NewReader(alt), bytes.NewReader(add))
		if err == nil {
			checkLoaded(t, es)
		}
	})
}

func FuzzLoadUN(f *testing.F) {
	var un bytes.Buffer
	if err := fuzzList().WriteUN(&un); err != nil {
		f.Fatal(err)
	}
	f.Add(un.Bytes())
	f.Add([]byte("<CONSOLIDATED_LIST></CONSOLIDATED_LIST>"))
	f.Add([]byte("<CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL><DATAID>1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := screening.LoadUN(bytes.NewReader(b))
		if err == nil {
			checkLoaded(t, es)
		}
	})
}

func FuzzLoadOpenSanctions(f *testing.F) {
	var b bytes.Buffer
	if err := fuzzList().WriteOpenSanctions(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte("id,schema,name\n1,Person,\"A\nB\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := screening.LoadOpenSanctions(bytes.NewReader(b))
		if err == nil {
			checkLoaded(t, es)
		}
	})
}

func FuzzLoadOrgCSV(f *testing.F) {
	var b bytes.Buffer
	if err := fuzzList().WriteOrgCSV(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte("\ufeffID,Name,Birth_Date\n1,A,1960\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := screening.LoadOrgCSV(bytes.NewReader(b))
		if err == nil {
			checkLoaded(t, es)
		}
	})
}
