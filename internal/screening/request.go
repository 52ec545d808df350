package screening

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MaxInputNameRunes is the longest name a screening or a customer may carry.
const MaxInputNameRunes = 300

// FieldErrors maps a request field to what is wrong with it (SPEC 7.1 details.fieldErrors).
type FieldErrors map[string][]string

// Add records one problem with a field.
func (f FieldErrors) Add(field, format string, args ...any) {
	f[field] = append(f[field], fmt.Sprintf(format, args...))
}

// CheckName validates a person's or organisation's name as a request gives it: present,
// at most MaxInputNameRunes characters, valid UTF-8 without control characters, and with
// at least one letter or digit once normalised.
func CheckName(f FieldErrors, field, name string) {
	switch {
	case strings.TrimSpace(name) == "":
		f.Add(field, "is required")
	case !utf8.ValidString(name):
		f.Add(field, "must be valid UTF-8")
	case utf8.RuneCountInString(name) > MaxInputNameRunes:
		f.Add(field, "must be at most %d characters", MaxInputNameRunes)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		f.Add(field, "must not contain control characters")
	case Normalize(name) == "":
		f.Add(field, "must contain a letter or a digit")
	}
}

// CheckBirthDate parses an ISO 8601 birth date (YYYY, YYYY-MM or YYYY-MM-DD) not in the
// future; nil when absent or invalid (the problem is recorded).
func CheckBirthDate(f FieldErrors, field, s string, now time.Time) *Date {
	if s == "" {
		return nil
	}
	d, err := ParseDate(s)
	if err != nil || !reISO.MatchString(strings.TrimSpace(s)) {
		f.Add(field, "must be an ISO 8601 date: YYYY, YYYY-MM or YYYY-MM-DD")
		return nil
	}
	if d.Year > now.Year() || d.Year == now.Year() && d.Month > int(now.Month()) {
		f.Add(field, "must not be in the future")
		return nil
	}
	return &d
}

// CheckCountry reads an ISO 3166-1 alpha-2 code or an English country name.
func CheckCountry(f FieldErrors, field, s string) string {
	if s == "" {
		return ""
	}
	c, ok := CountryCode(s)
	if !ok || len(s) > 80 {
		f.Add(field, "must be an ISO 3166-1 alpha-2 country code")
		return ""
	}
	return c
}

// CheckEntityType reads person, organisation, vessel or aircraft.
func CheckEntityType(f FieldErrors, field, s string) EntityType {
	t, ok := ParseEntityType(s)
	if !ok || len(s) > 40 {
		f.Add(field, "must be person, organisation, vessel or aircraft")
	}
	return t
}

// CheckThreshold accepts a score threshold in (0, 1]; 0 means the default.
func CheckThreshold(f FieldErrors, field string, t *float64) float64 {
	if t == nil {
		return 0
	}
	if *t <= 0 || *t > 1 {
		f.Add(field, "must be greater than 0 and at most 1")
		return 0
	}
	return *t
}
