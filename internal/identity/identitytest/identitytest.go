// Package identitytest generates the identity documents the identity product's tests send
// through the documents engine: passports and KTPs that are valid, expired, of an under-age
// holder, of another person, with a wrong MRZ check digit, with a printed name that differs
// from the MRZ, and unreadable photos. They are drawn by internal/documents/fixtures.
package identitytest

import (
	"image"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/documents/fixtures"
)

// must turns a (value, error) pair into a function that fails the test on error.
func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// Passport is the default passport (Budi Santoso, born 12 March 1985, C4821937, expires 2033).
func Passport() fixtures.Passport { return fixtures.DefaultPassport() }

// ExpiredPassport is the default passport expired on 1 May 2021.
func ExpiredPassport() fixtures.Passport {
	p := Passport()
	p.ExpiryDate = time.Date(2021, 5, 1, 0, 0, 0, 0, time.UTC)
	return p
}

// YoungPassport is the default passport of a holder born on 15 January 2010.
func YoungPassport() fixtures.Passport {
	p := Passport()
	p.BirthDate = time.Date(2010, 1, 15, 0, 0, 0, 0, time.UTC)
	return p
}

// OtherPassport is another person's passport (Andi Wijaya, born 2 November 1979, B7364021).
func OtherPassport() fixtures.Passport {
	return fixtures.Passport{IssuingState: "IDN", Surname: "WIJAYA", GivenNames: "ANDI", Number: "B7364021", Nationality: "IDN",
		BirthDate: time.Date(1979, 11, 2, 0, 0, 0, 0, time.UTC), Sex: "M", ExpiryDate: time.Date(2031, 1, 9, 0, 0, 0, 0, time.UTC), BirthPlace: "BANDUNG"}
}

// KTP is the default KTP (Siti Rahayu, born 5 June 1990, NIK 3174054506900003, valid for life).
func KTP() fixtures.KTP { return fixtures.DefaultKTP() }

// ExpiredKTP is the default KTP printed with an old validity date, 12 March 2020.
func ExpiredKTP() fixtures.KTP {
	k := KTP()
	k.ValidUntil = "12-03-2020"
	return k
}

// YoungKTP is the default KTP of a holder born on 3 February 2011 (its NIK says so too).
func YoungKTP() fixtures.KTP {
	k := KTP()
	k.BirthDate = time.Date(2011, 2, 3, 0, 0, 0, 0, time.UTC)
	k.NIK = fixtures.NIKFor("317405", k.BirthDate, true, 3)
	return k
}

// OtherKTP is another person's KTP (Agus Prasetyo, born 17 September 1982).
func OtherKTP() fixtures.KTP {
	k := KTP()
	k.Name, k.BirthDate, k.Female = "AGUS PRASETYO", time.Date(1982, 9, 17, 0, 0, 0, 0, time.UTC), false
	k.NIK = fixtures.NIKFor("317405", k.BirthDate, false, 12)
	return k
}

// PassportLayout draws p; edits change the drawn page (to forge it).
func PassportLayout(t testing.TB, p fixtures.Passport, edits ...func(*fixtures.Layout)) fixtures.Layout {
	t.Helper()
	l := must(p.Layout())(t)
	for _, e := range edits {
		e(&l)
	}
	return l
}

// BadCheckDigit replaces the document number's check digit in the MRZ (the second line's
// tenth character) with a wrong one.
func BadCheckDigit(l *fixtures.Layout) {
	last := &l.Items[len(l.Items)-1]
	b := []byte(last.Text)
	b[9] = '0' + (b[9]-'0'+3)%10
	last.Text = string(b)
}

// PrintedName replaces the default passport's printed full name; the MRZ keeps the true one.
func PrintedName(name string) func(*fixtures.Layout) {
	return func(l *fixtures.Layout) {
		p := fixtures.DefaultPassport()
		for i := range l.Items {
			if l.Items[i].Text == p.GivenNames+" "+p.Surname {
				l.Items[i].Text = name
			}
		}
	}
}

// TextPDF is the page as a PDF with a text layer (read in well under a second).
func TextPDF(t testing.TB, l fixtures.Layout) []byte { return must(l.PDF())(t) }

// Photo is the page photographed on a table, as PNG (OCR: a few seconds).
func Photo(t testing.TB, l fixtures.Layout, seed uint64) []byte {
	t.Helper()
	img := must(l.Image(fixtures.ScanDPI))(t)
	return must(fixtures.PNG(fixtures.Degrade(fixtures.Photo(img, 40), fixtures.Degradation{Noise: 3, Seed: seed})))(t)
}

// UnreadablePhoto is the page photographed in the dark and out of focus: nothing on it can
// be read.
func UnreadablePhoto(t testing.TB, l fixtures.Layout) []byte {
	t.Helper()
	img := must(l.Image(150))(t)
	var bad image.Image = fixtures.Degrade(fixtures.Photo(img, 20), fixtures.Degradation{Blur: 14, Contrast: 0.3, Brightness: -60})
	return must(fixtures.JPEG(bad, 60))(t)
}
