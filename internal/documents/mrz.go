package documents

import (
	"strings"
	"time"
)

// MRZCheckDigit computes the ICAO 9303 check digit of s: weights 7, 3, 1 repeating over
// the character values (0-9 as digits, A-Z as 10-35, '<' as 0), modulo 10.
func MRZCheckDigit(s string) (byte, error) {
	weights := [3]int{7, 3, 1}
	sum := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v int
		switch {
		case c >= '0' && c <= '9':
			v = int(c - '0')
		case c >= 'A' && c <= 'Z':
			v = int(c-'A') + 10
		case c == '<':
			v = 0
		default:
			return 0, invalid("format", "character %q is not allowed in an MRZ", c)
		}
		sum += v * weights[i%3]
	}
	return byte('0' + sum%10), nil
}

// MRZ is a parsed ICAO 9303 TD3 (passport) machine readable zone.
type MRZ struct {
	DocumentCode   string // "P" and an optional second letter
	IssuingState   string // 3 letters
	Surname        string
	GivenNames     string
	DocumentNumber string
	Nationality    string
	BirthDate      time.Time
	Sex            string // "M", "F" or "X" (for '<')
	ExpiryDate     time.Time
	PersonalNumber string
	// Failed lists the check digits that did not match: "document_number", "birth_date",
	// "expiry_date", "personal_number", "composite".
	Failed []string
	// Lines are the two 44-character lines as parsed (after OCR repair).
	Lines [2]string
}

// Valid reports whether every check digit matched.
func (m MRZ) Valid() bool { return len(m.Failed) == 0 }

// FailedCheck reports whether the check digit of the named part failed.
func (m MRZ) FailedCheck(part string) bool {
	for _, f := range m.Failed {
		if f == part {
			return true
		}
	}
	return false
}

// ParseTD3 parses the two 44-character lines of a passport MRZ. It returns an error only
// when the lines cannot be read at all; failed check digits are listed in MRZ.Failed.
// Characters in positions that must be digits are repaired from common OCR confusions
// (O→0, I→1, ...) before checking.
func ParseTD3(line1, line2 string, ref time.Time) (MRZ, error) {
	l1, l2 := cleanMRZLine(line1), cleanMRZLine(line2)
	if len(l1) != 44 || len(l2) != 44 {
		return MRZ{}, invalid("length", "TD3 lines have 44 characters, got %d and %d", len(l1), len(l2))
	}
	if l1[0] != 'P' {
		return MRZ{}, invalid("format", "a passport MRZ starts with P")
	}
	b2 := []byte(l2)
	// Positions that must be numeric (0-based): check digits, dates, composite.
	for _, span := range [][2]int{{9, 10}, {13, 20}, {21, 28}, {42, 44}} {
		for i := span[0]; i < span[1]; i++ {
			b2[i] = toDigit(b2[i])
		}
	}
	if b2[20] != 'M' && b2[20] != 'F' && b2[20] != '<' {
		b2[20] = toSex(b2[20])
	}
	l2 = string(b2)
	var m MRZ
	m.Lines = [2]string{l1, l2}
	m.DocumentCode = strings.TrimRight(l1[0:2], "<")
	m.IssuingState = strings.TrimRight(l1[2:5], "<")
	// Name parts are joined by '<', the surname ends with "<<", and after the given names
	// only filler follows: whatever OCR read in the filler after the next "<<" is ignored.
	sur, rest, _ := strings.Cut(strings.TrimLeft(l1[5:44], "<"), "<<")
	given, _, _ := strings.Cut(strings.TrimLeft(rest, "<"), "<<")
	m.Surname = strings.Join(strings.Fields(strings.ReplaceAll(sur, "<", " ")), " ")
	m.GivenNames = strings.Join(strings.Fields(strings.ReplaceAll(given, "<", " ")), " ")
	m.DocumentNumber = strings.TrimRight(l2[0:9], "<")
	m.Nationality = strings.TrimRight(l2[10:13], "<")
	m.Sex = strings.TrimRight(l2[20:21], "<")
	if m.Sex == "" {
		m.Sex = "X"
	}
	m.PersonalNumber = strings.TrimRight(l2[28:42], "<")

	check := func(name, field string, digit byte) {
		want, err := MRZCheckDigit(field)
		if err != nil || want != digit {
			// An empty optional personal number may carry '<' or '0' as its check digit.
			if name == "personal_number" && strings.Trim(field, "<") == "" && (digit == '<' || digit == '0') {
				return
			}
			m.Failed = append(m.Failed, name)
		}
	}
	check("document_number", l2[0:9], l2[9])
	check("birth_date", l2[13:19], l2[19])
	check("expiry_date", l2[21:27], l2[27])
	check("personal_number", l2[28:42], l2[42])
	check("composite", l2[0:10]+l2[13:20]+l2[21:43], l2[43])

	if ref.IsZero() {
		ref = time.Now()
	}
	var ok bool
	if m.BirthDate, ok = mrzDate(l2[13:19], ref, false); !ok {
		m.Failed = appendOnce(m.Failed, "birth_date")
	}
	if m.ExpiryDate, ok = mrzDate(l2[21:27], ref, true); !ok {
		m.Failed = appendOnce(m.Failed, "expiry_date")
	}
	return m, nil
}

// mrzDate reads YYMMDD. Birth dates are never in the future; expiry dates are placed
// within 50 years after ref... and at most 50 years before it.
func mrzDate(s string, ref time.Time, expiry bool) (time.Time, bool) {
	if !allDigits(s) || len(s) != 6 {
		return time.Time{}, false
	}
	yy, mm, dd := atoi2(s[0:2]), atoi2(s[2:4]), atoi2(s[4:6])
	year := 2000 + yy
	if expiry {
		if year > ref.Year()+50 {
			year -= 100
		}
	} else if year > ref.Year() {
		year -= 100
	}
	return makeDate(year, mm, dd)
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// cleanMRZLine upper-cases, drops spaces and maps the filler look-alikes OCR produces
// ('«', '‹', '(', '{', '[') to '<'.
func cleanMRZLine(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch {
		case r == ' ' || r == '\t':
		case r == '«' || r == '‹' || r == '(' || r == '{' || r == '[' || r == '≤':
			b.WriteByte('<')
		case r < 128:
			b.WriteRune(r)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// toDigit maps letters that OCR confuses with digits back to the digit.
func toDigit(c byte) byte {
	switch c {
	case 'O', 'Q', 'D', 'U':
		return '0'
	case 'I', 'L', 'T', '|':
		return '1'
	case 'Z':
		return '2'
	case 'S':
		return '5'
	case 'G':
		return '6'
	case 'B':
		return '8'
	case 'A':
		return '4'
	}
	return c
}

func toSex(c byte) byte {
	switch c {
	case 'N', 'H':
		return 'M'
	case 'E', 'P':
		return 'F'
	}
	return c
}
