package screening

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// EntityType is what a list entry or a query names.
type EntityType string

// The entity types; Unknown matches any.
const (
	Unknown      EntityType = ""
	Person       EntityType = "person"
	Organization EntityType = "organisation"
	Vessel       EntityType = "vessel"
	Aircraft     EntityType = "aircraft"
)

// ParseEntityType reads the usual spellings of an entity type; ok is false for anything else.
func ParseEntityType(s string) (EntityType, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return Unknown, true
	case "person", "individual", "natural person":
		return Person, true
	case "organisation", "organization", "entity", "company", "legalentity", "legal entity":
		return Organization, true
	case "vessel":
		return Vessel, true
	case "aircraft", "airplane":
		return Aircraft, true
	}
	return Unknown, false
}

// Date is a birth date, possibly partial: Month and Day are 0 when unknown.
type Date struct {
	Year  int `json:"year"`
	Month int `json:"month,omitempty"`
	Day   int `json:"day,omitempty"`
}

// String is the ISO 8601 form (YYYY, YYYY-MM or YYYY-MM-DD).
func (d Date) String() string {
	switch {
	case d.Month == 0:
		return fmt.Sprintf("%04d", d.Year)
	case d.Day == 0:
		return fmt.Sprintf("%04d-%02d", d.Year, d.Month)
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
}

var (
	reISO   = regexp.MustCompile(`^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$`)
	reDMY   = regexp.MustCompile(`^(\d{1,2})[ ./-]([A-Za-z]{3,9}|\d{1,2})[ ./-](\d{4})$`)
	reMY    = regexp.MustCompile(`^([A-Za-z]{3,9})[ ./-](\d{4})$`)
	reCirca = regexp.MustCompile(`^(?i:circa|approximately|approx\.?|ca\.?|c\.)\s*(\d{4})$`)
)

var months = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

// ParseDate reads a birth date as lists write it: 1960-01-02, 1960-01, 1960, 02 Jan 1960,
// 02/01/1960 (day first), Jan 1960, circa 1960. Impossible dates are errors.
func ParseDate(s string) (Date, error) {
	s = strings.TrimSpace(s)
	var y, m, d int
	switch {
	case reISO.MatchString(s):
		p := reISO.FindStringSubmatch(s)
		y, m, d = atoi(p[1]), atoi(p[2]), atoi(p[3])
	case reDMY.MatchString(s):
		p := reDMY.FindStringSubmatch(s)
		d, y = atoi(p[1]), atoi(p[3])
		if m = monthOf(p[2]); m == 0 {
			return Date{}, fmt.Errorf("unknown month %q", p[2])
		}
	case reCirca.MatchString(s):
		y = atoi(reCirca.FindStringSubmatch(s)[1])
	case reMY.MatchString(s):
		p := reMY.FindStringSubmatch(s)
		y = atoi(p[2])
		if m = monthOf(p[1]); m == 0 {
			return Date{}, fmt.Errorf("unknown month %q", p[1])
		}
	default:
		return Date{}, fmt.Errorf("not a date: %q", truncate(s, 40))
	}
	if y < 1800 || y > 2200 || m < 0 || m > 12 || d < 0 || d > 31 || (d > 0 && m == 0) {
		return Date{}, fmt.Errorf("not a date: %q", truncate(s, 40))
	}
	if d > 0 && time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Day() != d {
		return Date{}, fmt.Errorf("no such day: %q", truncate(s, 40))
	}
	return Date{Year: y, Month: m, Day: d}, nil
}

func monthOf(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		if n >= 1 && n <= 12 {
			return n
		}
		return 0
	}
	if len(s) < 3 {
		return 0
	}
	return months[strings.ToLower(s[:3])]
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Entity is one list entry: a person, organisation, vessel or aircraft with its names.
type Entity struct {
	ID         string     `json:"id"`
	Type       EntityType `json:"type"`
	Name       string     `json:"name"`
	Aliases    []string   `json:"aliases,omitempty"`
	BirthDates []Date     `json:"birthDates,omitempty"`
	Countries  []string   `json:"countries,omitempty"` // ISO 3166-1 alpha-2, lower case, when known
	Programs   []string   `json:"programs,omitempty"`
	Remarks    string     `json:"remarks,omitempty"`
}

// Names is the primary name followed by the aliases.
func (e *Entity) Names() []string {
	return append([]string{e.Name}, e.Aliases...)
}
