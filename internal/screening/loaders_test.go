package screening_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/internal/screening/fixtures"
)

// names is an entity's normalised names as a sorted set.
func names(e *screening.Entity) []string {
	var out []string
	for _, n := range e.Names() {
		out = append(out, screening.Normalize(n))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func dateSet(ds []screening.Date) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	slices.Sort(out)
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// sameEntities checks that a loaded list holds the generated entities: ids, types, names,
// birth dates and countries.
func sameEntities(t *testing.T, format string, want, got []screening.Entity, checkCountries bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d entities, want %d", format, len(got), len(want))
	}
	for i := range want {
		w, g := &want[i], &got[i]
		if g.ID != w.ID || g.Type != w.Type {
			t.Fatalf("%s: entity %d is %s/%s, want %s/%s", format, i, g.ID, g.Type, w.ID, w.Type)
		}
		if !slices.Equal(names(g), names(w)) {
			t.Errorf("%s: %s names %q, want %q", format, w.ID, names(g), names(w))
		}
		if !slices.Equal(dateSet(g.BirthDates), dateSet(w.BirthDates)) {
			t.Errorf("%s: %s birth dates %v, want %v", format, w.ID, g.BirthDates, w.BirthDates)
		}
		if checkCountries && !slices.Equal(sorted(g.Countries), sorted(w.Countries)) {
			t.Errorf("%s: %s countries %v, want %v", format, w.ID, g.Countries, w.Countries)
		}
	}
}

func TestLoadersRoundTrip(t *testing.T) {
	l := fixtures.Generate(11, 600)
	var sdn, alt, add, un, os, org bytes.Buffer
	if err := l.WriteOFAC(&sdn, &alt, &add); err != nil {
		t.Fatal(err)
	}
	got, err := screening.LoadOFAC(bytes.NewReader(sdn.Bytes()), bytes.NewReader(alt.Bytes()), bytes.NewReader(add.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	sameEntities(t, "ofac", l.Entities, got, true)

	if err := l.WriteUN(&un); err != nil {
		t.Fatal(err)
	}
	got, err = screening.LoadUN(bytes.NewReader(un.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	// The UN file lists individuals before entities.
	var people, orgs []screening.Entity
	for _, e := range l.Entities {
		if e.Type == screening.Person {
			people = append(people, e)
		} else {
			orgs = append(orgs, e)
		}
	}
	sameEntities(t, "un", append(people, orgs...), got, true)

	if err := l.WriteOpenSanctions(&os); err != nil {
		t.Fatal(err)
	}
	got, err = screening.LoadOpenSanctions(bytes.NewReader(os.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	sameEntities(t, "opensanctions", l.Entities, got, true)

	if err := l.WriteOrgCSV(&org); err != nil {
		t.Fatal(err)
	}
	got, err = screening.LoadOrgCSV(bytes.NewReader(org.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	sameEntities(t, "org", l.Entities, got, true)
	if screening.Hash(got) != screening.Hash(l.Entities) {
		t.Error("the org CSV round trip changed the content hash")
	}
}

func TestLoadersRejectMalformed(t *testing.T) {
	l := fixtures.Generate(12, 50)
	var sdn, alt, add, un bytes.Buffer
	if err := l.WriteOFAC(&sdn, &alt, &add); err != nil {
		t.Fatal(err)
	}
	if err := l.WriteUN(&un); err != nil {
		t.Fatal(err)
	}
	// Any cut of the XML leaves its root open.
	for _, cut := range []int{1, un.Len() / 3, un.Len() / 2, un.Len() - 5} {
		_, err := screening.LoadUN(bytes.NewReader(un.Bytes()[:cut]))
		if !errors.Is(err, screening.ErrMalformed) {
			t.Errorf("UN cut at %d: err = %v, want ErrMalformed", cut, err)
		}
	}
	cases := map[string]func() error{
		"ofac short record": func() error {
			_, err := screening.LoadOFAC(strings.NewReader("1,\"A B\",individual\n"), nil, nil)
			return err
		},
		"ofac open quote": func() error {
			_, err := screening.LoadOFAC(strings.NewReader("1,\"A B,individual,-0-,-0-,-0-,-0-,-0-,-0-,-0-,-0-,-0-\n"), nil, nil)
			return err
		},
		"ofac alias of unknown entity": func() error {
			_, err := screening.LoadOFAC(bytes.NewReader(sdn.Bytes()), strings.NewReader("999999,1,aka,\"X Y\",-0-\n"), nil)
			return err
		},
		"ofac duplicate": func() error {
			row := "7,\"A B\",individual,-0-,-0-,-0-,-0-,-0-,-0-,-0-,-0-,-0-\n"
			_, err := screening.LoadOFAC(strings.NewReader(row+row), nil, nil)
			return err
		},
		"un wrong root": func() error {
			_, err := screening.LoadUN(strings.NewReader("<html></html>"))
			return err
		},
		"un empty": func() error {
			_, err := screening.LoadUN(strings.NewReader(""))
			return err
		},
		"un bad date": func() error {
			_, err := screening.LoadUN(strings.NewReader(`<CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL><DATAID>1</DATAID><FIRST_NAME>A</FIRST_NAME><INDIVIDUAL_DATE_OF_BIRTH><DATE>1960-02-31</DATE></INDIVIDUAL_DATE_OF_BIRTH></INDIVIDUAL></INDIVIDUALS></CONSOLIDATED_LIST>`))
			return err
		},
		"opensanctions no header": func() error {
			_, err := screening.LoadOpenSanctions(strings.NewReader(""))
			return err
		},
		"opensanctions missing column": func() error {
			_, err := screening.LoadOpenSanctions(strings.NewReader("id,name\n1,A\n"))
			return err
		},
		"org missing name": func() error {
			_, err := screening.LoadOrgCSV(strings.NewReader("id,name\n1,\n"))
			return err
		},
		"org bad type": func() error {
			_, err := screening.LoadOrgCSV(strings.NewReader("id,name,type\n1,A,robot\n"))
			return err
		},
		"org bad country": func() error {
			_, err := screening.LoadOrgCSV(strings.NewReader("id,name,countries\n1,A,Atlantis\n"))
			return err
		},
		"org truncated row": func() error {
			_, err := screening.LoadOrgCSV(strings.NewReader("id,name,countries\n1,A,de\n2,B"))
			return err
		},
		"org not utf-8": func() error {
			_, err := screening.LoadOrgCSV(strings.NewReader("id,name\n1,\xff\xfe\n"))
			return err
		},
	}
	for name, f := range cases {
		err := f()
		var pe *screening.ParseError
		if !errors.As(err, &pe) || !errors.Is(err, screening.ErrMalformed) {
			t.Errorf("%s: err = %v, want a *ParseError", name, err)
		}
	}
}

func TestOFACRemarks(t *testing.T) {
	sdn := `306,"BANCO NACIONAL DE CUBA",-0-,"CUBA",-0-,-0-,-0-,-0-,-0-,-0-,-0-,"a.k.a. 'BNC'."
2674,"ABU NIDAL, Sabri",individual,"SDT",-0-,-0-,-0-,-0-,-0-,-0-,-0-,"DOB May 1937; alt. DOB 1940 to 1942; nationality Palestinian Territories; citizen Iraq."
` + "\x1a\n"
	add := `306,199,"Dai Ichi Bldg",Tokyo,"Japan",-0-` + "\n"
	got, err := screening.LoadOFAC(strings.NewReader(sdn), nil, strings.NewReader(add))
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Type != screening.Organization || !slices.Contains(got[0].Aliases, "BNC") || !slices.Equal(got[0].Countries, []string{"jp"}) {
		t.Errorf("bank = %+v", got[0])
	}
	p := got[1]
	if p.Name != "Sabri ABU NIDAL" || p.Type != screening.Person {
		t.Errorf("person name/type = %q %s", p.Name, p.Type)
	}
	if !slices.Equal(dateSet(p.BirthDates), []string{"1937-05", "1940", "1942"}) {
		t.Errorf("birth dates = %v", p.BirthDates)
	}
	if !slices.Equal(sorted(p.Countries), []string{"iq", "ps"}) {
		t.Errorf("countries = %v", p.Countries)
	}
}

func TestHashAndDiff(t *testing.T) {
	l := fixtures.Generate(13, 100)
	old := slices.Clone(l.Entities)
	cur := slices.Clone(l.Entities[5:]) // 0..4 removed
	cur[0].Aliases = append(slices.Clone(cur[0].Aliases), "New Alias")
	cur = append(cur, screening.Entity{ID: "new-1", Type: screening.Person, Name: "Added Person"})
	slices.Reverse(cur)
	d := screening.Diff(old, cur)
	if !slices.Equal(d.Added, []string{"new-1"}) || !slices.Equal(d.Changed, []string{old[5].ID}) || len(d.Removed) != 5 {
		t.Errorf("delta = %+v", d)
	}
	if screening.Hash(old) == screening.Hash(cur) {
		t.Error("different lists hash the same")
	}
	rev := slices.Clone(old)
	slices.Reverse(rev)
	if screening.Hash(old) != screening.Hash(rev) || !screening.Diff(old, rev).Empty() {
		t.Error("order changed the hash or the delta")
	}
}
