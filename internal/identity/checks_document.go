package identity

import (
	"slices"
	"strings"
	"time"

	"github.com/svcplatform/svc/internal/documents"
)

// MinReadableConfidence is the mean OCR confidence below which an unclassified page counts
// as unreadable (a blurred or dark photo) rather than as some other document.
const MinReadableConfidence = 0.5

// MinReadableWords is how many words an unclassified page needs to count as read.
const MinReadableWords = 8

// documentCheck: the engine read the file, recognised an identity document, and the
// policy accepts that type.
type documentCheck struct{}

func (documentCheck) Type() CheckType { return CheckDocument }

func (documentCheck) Run(in *Input) CheckResult {
	d := in.Document
	switch {
	case !d.Readable:
		return failed(CheckDocument, ReasonDocumentUnreadable)
	case !slices.Contains(DocumentTypes(), d.Type):
		if d.Words < MinReadableWords || d.MeanConfidence < MinReadableConfidence {
			return failed(CheckDocument, ReasonDocumentUnreadable)
		}
		return failed(CheckDocument, ReasonDocumentTypeUnknown)
	case !in.Policy.Allows(d.Type):
		return failed(CheckDocument, ReasonDocumentTypeNotAllowed)
	}
	return passed(CheckDocument)
}

// mrzCheck: a passport's machine readable zone was found and its ICAO 9303 check digits
// (number, birth date, expiry, personal number, composite) hold.
type mrzCheck struct{}

func (mrzCheck) Type() CheckType { return CheckMRZ }

func (mrzCheck) Run(in *Input) CheckResult {
	d := in.Document
	if d.Type != documents.TypePassport {
		return notApplicable(CheckMRZ, ReasonNotPassport)
	}
	if slices.Contains(d.Flags, "mrz_not_found") {
		return failed(CheckMRZ, ReasonMRZNotFound)
	}
	if slices.Contains(d.Flags, "mrz_composite_check_failed") {
		return failed(CheckMRZ, ReasonMRZCheckDigitFailed)
	}
	for _, name := range []string{"document_number", "birth_date", "expiry_date", "personal_number"} {
		if f, ok := d.Fields[name]; ok && f.Problem == "check_digit" {
			return failed(CheckMRZ, ReasonMRZCheckDigitFailed)
		}
	}
	return passed(CheckMRZ)
}

// expiryCheck: the document is valid on the day of the attempt (through its expiry day);
// a KTP printed "SEUMUR HIDUP" never expires.
type expiryCheck struct{}

func (expiryCheck) Type() CheckType { return CheckExpiry }

func (expiryCheck) Run(in *Input) CheckResult {
	expiry, lifetime, ok := in.Document.Expiry()
	switch {
	case !ok:
		return failed(CheckExpiry, ReasonExpiryUnreadable)
	case lifetime:
		return passed(CheckExpiry)
	case expiry.Before(day(in.Now)):
		return failed(CheckExpiry, ReasonDocumentExpired)
	}
	return passed(CheckExpiry)
}

// ageCheck: the holder, by the document's birth date, is at least the policy's minimum age.
type ageCheck struct{}

func (ageCheck) Type() CheckType { return CheckAge }

func (ageCheck) Run(in *Input) CheckResult {
	if in.Policy.MinimumAge <= 0 {
		return notApplicable(CheckAge, ReasonNoMinimumAge)
	}
	birth, ok := in.Document.BirthDate()
	if !ok {
		return failed(CheckAge, ReasonBirthDateUnreadable)
	}
	if Age(birth, in.Now) < in.Policy.MinimumAge {
		return failed(CheckAge, ReasonUnderMinimumAge)
	}
	return passed(CheckAge)
}

// Age is the number of whole years from birth to the date of now (UTC); someone born on
// 29 February turns a year older on 1 March in a common year.
func Age(birth, now time.Time) int {
	n := day(now)
	years := n.Year() - birth.Year()
	if n.Before(birth.AddDate(years, 0, 0)) {
		years--
	}
	return years
}

// day is the UTC date of t at midnight.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// normalizeNumber drops the separators people type into document numbers and upper-cases.
func normalizeNumber(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '.', '-', '/', '<':
			return -1
		}
		if r >= 'a' && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
}
