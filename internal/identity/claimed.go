package identity

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Claimed is what the person says about themselves; the document is compared with it.
type Claimed struct {
	// FullName in any order and script variant; required.
	FullName string `json:"fullName"`
	// BirthDate as YYYY-MM-DD; required.
	BirthDate string `json:"birthDate"`
	// Nationality as an ISO 3166-1 alpha-3 code; optional.
	Nationality string `json:"nationality,omitempty"`
	// DocumentNumber (passport number or NIK); optional, compared when given.
	DocumentNumber string `json:"documentNumber,omitempty"`
}

// Limits of the claimed data.
const (
	MaxNameLength     = 200
	MaxDocumentNumber = 32
)

var (
	alpha3Re = regexp.MustCompile(`^[A-Z]{3}$`)
	docNumRe = regexp.MustCompile(`^[A-Za-z0-9 .\-/]+$`)
)

// Normalized returns the claim with spaces collapsed and codes upper-cased.
func (c Claimed) Normalized() Claimed {
	c.FullName = strings.Join(strings.Fields(c.FullName), " ")
	c.BirthDate = strings.TrimSpace(c.BirthDate)
	c.Nationality = strings.ToUpper(strings.TrimSpace(c.Nationality))
	c.DocumentNumber = strings.TrimSpace(c.DocumentNumber)
	return c
}

// Validate returns the claim's problems keyed by field path under prefix ("claimed"); nil
// when it is valid. now bounds the birth date (not in the future).
func (c Claimed) Validate(prefix string, now time.Time) map[string][]string {
	fe := map[string][]string{}
	add := func(field, format string, args ...any) {
		fe[prefix+"."+field] = append(fe[prefix+"."+field], fmt.Sprintf(format, args...))
	}
	switch {
	case !utf8.ValidString(c.FullName):
		add("fullName", "must be valid UTF-8")
	case strings.TrimSpace(c.FullName) == "":
		add("fullName", "is required")
	case utf8.RuneCountInString(c.FullName) > MaxNameLength:
		add("fullName", "must have at most %d characters", MaxNameLength)
	case !strings.ContainsFunc(c.FullName, unicode.IsLetter):
		add("fullName", "must contain a letter")
	case strings.ContainsFunc(c.FullName, func(r rune) bool { return unicode.IsControl(r) || unicode.IsDigit(r) }):
		add("fullName", "must not contain digits or control characters")
	}
	if c.BirthDate == "" {
		add("birthDate", "is required")
	} else if d, err := time.Parse(time.DateOnly, c.BirthDate); err != nil {
		add("birthDate", "must be a date YYYY-MM-DD")
	} else if d.After(now) || d.Year() < now.Year()-MaxMinimumAge-5 {
		add("birthDate", "must be a past date of a living person")
	}
	if c.Nationality != "" && !alpha3Re.MatchString(c.Nationality) {
		add("nationality", "must be an ISO 3166-1 alpha-3 code such as IDN")
	}
	if n := c.DocumentNumber; n != "" && (len(n) > MaxDocumentNumber || !docNumRe.MatchString(n)) {
		add("documentNumber", "must be at most %d letters, digits, spaces, dots, dashes or slashes", MaxDocumentNumber)
	}
	if len(fe) == 0 {
		return nil
	}
	return fe
}
