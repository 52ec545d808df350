package statements

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
)

// Amount is a sum of money in minor units (cents). Money is never held in a float.
type Amount int64

// String formats the amount with a dot and two decimals, e.g. "-1234.56".
func (a Amount) String() string {
	neg := a < 0
	if neg {
		a = -a
	}
	s := strconv.FormatInt(int64(a/100), 10) + "." + pad2(int64(a%100))
	if neg {
		return "-" + s
	}
	return s
}

func pad2(v int64) string {
	if v < 10 {
		return "0" + strconv.FormatInt(v, 10)
	}
	return strconv.FormatInt(v, 10)
}

// Abs returns the absolute value.
func (a Amount) Abs() Amount {
	if a < 0 {
		return -a
	}
	return a
}

// NumberFormat says how a locale writes amounts: the decimal separator and the thousands
// separators it accepts ("," for 1,234.56; "." for 1.234,56; "'" for 1'234.56; " " for
// 1 234,56).
type NumberFormat struct {
	Decimal   byte   `json:"decimal"`
	Thousands string `json:"thousands"`
}

// The number formats of the built-in templates.
var (
	FormatUS    = NumberFormat{Decimal: '.', Thousands: ","}
	FormatEU    = NumberFormat{Decimal: ',', Thousands: "."}
	FormatCH    = NumberFormat{Decimal: '.', Thousands: "'’"}
	FormatFR    = NumberFormat{Decimal: ',', Thousands: " \u00a0\u202f"}
	FormatPlain = NumberFormat{Decimal: '.', Thousands: ""}
)

// ErrAmount is returned for text that is not an amount.
var ErrAmount = errors.New("not an amount")

// maxDigits bounds an amount's digits so that int64 cannot overflow.
const maxDigits = 15

// ParseAmount reads an amount written in format f: an optional sign ("-", "+", "−", a
// trailing "-", or parentheses), digits grouped by the thousands separator, and exactly
// two decimals after the decimal separator (none is accepted as whole units only when
// f.Decimal is 0). "CR" and "DR" suffixes set the sign. It is exact: no float is involved.
func ParseAmount(s string, f NumberFormat) (Amount, error) {
	s = strings.TrimSpace(s)
	neg := false
	up := strings.ToUpper(s)
	switch {
	case strings.HasSuffix(up, "DR"):
		neg, s = true, strings.TrimSpace(s[:len(s)-2])
	case strings.HasSuffix(up, "CR"):
		s = strings.TrimSpace(s[:len(s)-2])
	}
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") && len(s) > 2 {
		neg, s = !neg, s[1:len(s)-1]
	}
	switch {
	case strings.HasPrefix(s, "-"), strings.HasPrefix(s, "+"):
		neg, s = neg != (s[0] == '-'), s[1:]
	case strings.HasPrefix(s, "−"):
		neg, s = !neg, strings.TrimPrefix(s, "−")
	case strings.HasSuffix(s, "-"):
		neg, s = !neg, s[:len(s)-1]
	}
	if s == "" {
		return 0, ErrAmount
	}
	var intPart, frac string
	if i := strings.LastIndexByte(s, f.Decimal); i >= 0 {
		intPart, frac = s[:i], s[i+1:]
		if len(frac) != 2 {
			return 0, ErrAmount
		}
	} else {
		return 0, ErrAmount
	}
	digits, err := groupedDigits(intPart, f.Thousands)
	if err != nil {
		return 0, err
	}
	for _, r := range frac {
		if r < '0' || r > '9' {
			return 0, ErrAmount
		}
	}
	digits += frac
	if len(digits) > maxDigits {
		return 0, ErrAmount
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, ErrAmount
	}
	if neg {
		v = -v
	}
	return Amount(v), nil
}

// groupedDigits checks digit grouping (groups of three after the first when a thousands
// separator is used) and returns the bare digits.
func groupedDigits(s, thousands string) (string, error) {
	if s == "" {
		return "", ErrAmount
	}
	var b strings.Builder
	group, grouped, first := 0, false, true
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
			group++
		case thousands != "" && strings.ContainsRune(thousands, r):
			if group == 0 || (!first && group != 3) || (first && group > 3) {
				return "", ErrAmount
			}
			grouped, first, group = true, false, 0
		default:
			return "", ErrAmount
		}
	}
	if group == 0 || (grouped && group != 3) {
		return "", ErrAmount
	}
	return b.String(), nil
}

// FormatAmount writes a in format f with thousands grouping (the first thousands separator
// of f) and two decimals; negative amounts get a leading "-".
func FormatAmount(a Amount, f NumberFormat) string {
	neg := a < 0
	a = a.Abs()
	whole := strconv.FormatInt(int64(a/100), 10)
	if sep := []rune(f.Thousands); len(sep) > 0 {
		var b strings.Builder
		for i, r := range whole {
			if i > 0 && (len(whole)-i)%3 == 0 {
				b.WriteRune(sep[0])
			}
			b.WriteRune(r)
		}
		whole = b.String()
	}
	s := whole + string(rune(f.Decimal)) + pad2(int64(a%100))
	if neg {
		return "-" + s
	}
	return s
}

// looksNumeric reports whether s is made of digits, separators and signs only (a
// candidate amount before locale-aware parsing).
func looksNumeric(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune(".,'’ \u00a0\u202f-+()−", r):
		default:
			return false
		}
	}
	return digits > 0
}
