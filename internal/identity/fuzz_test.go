package identity_test

import (
	"testing"
	"time"
	"unicode"

	"github.com/svcplatform/svc/internal/identity"
)

// FuzzNameMatch: any pair of names scores within [0, 1] without panicking, and a name with
// a letter in it matches itself.
func FuzzNameMatch(f *testing.F) {
	for _, s := range [][2]string{{"Budi Santoso", "BUDI SANTOSO"}, {"Иван Петров", "IVAN PETROV"}, {"O'Brien-Ó Néill", "OBRIEN O NEILL"},
		{"", "<<<"}, {"\xff\xfe", "ß"}, {"a a a a a a a a a a", "aaaaaaaaaa"}, {"Nguyễn Văn", "NGUYEN VAN"}} {
		f.Add(s[0], s[1])
	}
	m := identity.DefaultNameMatcher{}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 400 || len(b) > 400 {
			return
		}
		s := m.Match(a, b)
		if s < 0 || s > 1 {
			t.Fatalf("Match(%q, %q) = %v", a, b, s)
		}
		hasLetter := false
		for _, r := range a {
			hasLetter = hasLetter || unicode.IsLetter(r)
		}
		if hasLetter && m.Match(a, a) != 1 && m.Match(a, a) != 0 {
			t.Fatalf("Match(%q, itself) = %v", a, m.Match(a, a))
		}
	})
}

// FuzzClaimedValidate: a claim from an API body is validated without panicking, and one
// that validates has a usable birth date and name.
func FuzzClaimedValidate(f *testing.F) {
	f.Add("Siti Rahayu", "1990-06-05", "IDN", "3174054506900003")
	f.Add("", "1990-02-30", "id", "<script>")
	f.Add("\x00", "9999-99-99", "ZZZZ", "----")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, name, birth, nat, num string) {
		c := identity.Claimed{FullName: name, BirthDate: birth, Nationality: nat, DocumentNumber: num}.Normalized()
		if c.Validate("claimed", now) != nil {
			return
		}
		if _, err := time.Parse(time.DateOnly, c.BirthDate); err != nil {
			t.Fatalf("valid claim with birth date %q", c.BirthDate)
		}
	})
}

// FuzzDocumentExpiry: whatever OCR read as a KTP's validity, Expiry does not panic and
// reports a date only when it read one.
func FuzzDocumentExpiry(f *testing.F) {
	for _, s := range []string{"SEUMUR HIDUP", "12-03-2020", "31/02/2021", "1.1.1", "", "99-99-9999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d := identity.Document{Readable: true, Type: "ktp", Fields: map[string]identity.DocumentField{"valid_until": {Value: v}}}
		exp, lifetime, ok := d.Expiry()
		if ok && !lifetime && exp.IsZero() {
			t.Fatalf("Expiry(%q) ok without a date", v)
		}
	})
}
