package documents

import (
	"fmt"
	"strings"
	"time"
)

// ValidationError says why an identifier failed a structural check.
type ValidationError struct {
	// Code is a stable machine readable reason: "format", "length", "check_digit", "region", "date", "serial".
	Code string
	// Msg is a human readable explanation.
	Msg string
}

// Error implements error.
func (e *ValidationError) Error() string { return e.Code + ": " + e.Msg }

func invalid(code, format string, args ...any) *ValidationError {
	return &ValidationError{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// LuhnValid reports whether a string of ASCII digits passes the Luhn (mod 10) check,
// its last digit being the check digit.
func LuhnValid(digits string) bool {
	if len(digits) < 2 || !allDigits(digits) {
		return false
	}
	return luhnSum(digits, false)%10 == 0
}

// LuhnCheckDigit returns the digit that, appended to payload, makes it Luhn-valid.
func LuhnCheckDigit(payload string) (byte, error) {
	if payload == "" || !allDigits(payload) {
		return 0, invalid("format", "payload must be digits")
	}
	return byte('0' + (10-luhnSum(payload, true)%10)%10), nil
}

// luhnSum doubles every second digit from the right; when payload is true the rightmost
// digit is doubled (the check digit is not yet appended).
func luhnSum(digits string, payload bool) int {
	sum := 0
	double := payload
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// digitsOnly drops the separators people and cards print inside numbers (spaces, dots,
// dashes, slashes); it returns "" when anything else is present.
func digitsOnly(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '.' || r == '-' || r == '/' || r == '\u2013':
		default:
			return ""
		}
	}
	return b.String()
}

// NPWPForm tells which of the three shapes an NPWP number has.
type NPWPForm string

// The NPWP shapes.
const (
	// NPWP15 is the classic 15-digit TT.SSS.SSS.C-KKK.BBB number.
	NPWP15 NPWPForm = "npwp15"
	// NPWP16Legacy is the 16-digit form made of "0" and the 15-digit number.
	NPWP16Legacy NPWPForm = "npwp16_legacy"
	// NPWP16NIK is the 16-digit form that is a person's NIK.
	NPWP16NIK NPWPForm = "npwp16_nik"
)

// NPWP is a parsed Indonesian taxpayer identification number.
type NPWP struct {
	// Digits are the 15 or 16 digits without separators.
	Digits string
	Form   NPWPForm
	// TaxType (TT), Serial (SSS.SSS), Check (C), Office (KKK, the tax office) and Branch (BBB,
	// 000 for a head office) are the parts of the 15-digit number (also of a legacy 16-digit one).
	TaxType, Serial, Check, Office, Branch string
	// NIK is set for the NIK form.
	NIK *NIK
}

// Canonical renders the number as printed: TT.SSS.SSS.C-KKK.BBB for 15 digits, the plain
// 16 digits otherwise.
func (n NPWP) Canonical() string {
	if n.Form == NPWP15 {
		d := n.Digits
		return d[0:2] + "." + d[2:5] + "." + d[5:8] + "." + d[8:9] + "-" + d[9:12] + "." + d[12:15]
	}
	return n.Digits
}

// ParseNPWP parses and validates an NPWP number in any of its forms. The 15-digit number's
// 9th digit is a Luhn check digit over the first 9 digits; a 16-digit number is either "0"
// followed by a valid 15-digit number or a valid NIK (ref resolves the NIK's century).
func ParseNPWP(s string, ref time.Time) (NPWP, error) {
	d := digitsOnly(strings.TrimSpace(s))
	if d == "" {
		return NPWP{}, invalid("format", "an NPWP is made of digits, dots and dashes")
	}
	switch len(d) {
	case 15:
		n := NPWP{Digits: d, Form: NPWP15, TaxType: d[0:2], Serial: d[2:8], Check: d[8:9], Office: d[9:12], Branch: d[12:15]}
		if !LuhnValid(d[:9]) {
			return n, invalid("check_digit", "check digit %s does not match the first 8 digits", d[8:9])
		}
		return n, nil
	case 16:
		if d[0] == '0' {
			old, err := ParseNPWP(d[1:], ref)
			old.Digits, old.Form = d, NPWP16Legacy
			return old, err
		}
		nik, err := ParseNIK(d, ref)
		n := NPWP{Digits: d, Form: NPWP16NIK}
		if err == nil {
			n.NIK = &nik
		}
		return n, err
	default:
		return NPWP{}, invalid("length", "an NPWP has 15 or 16 digits, got %d", len(d))
	}
}

// NIK is a decoded Indonesian population identity number (Nomor Induk Kependudukan):
// PP KK CC DDMMYY SSSS, where women's day of birth is written plus 40.
type NIK struct {
	Digits string
	// Province, Regency and District are the 2-digit region codes.
	Province, Regency, District string
	// BirthDate is the decoded date of birth (UTC midnight).
	BirthDate time.Time
	// Female is true when the day was written plus 40.
	Female bool
	// Serial is the 4-digit registration serial.
	Serial string
}

// provinces are the province codes in use (BPS/Kemendagri), including the 2022 Papua provinces.
var provinces = map[string]string{
	"11": "ACEH", "12": "SUMATERA UTARA", "13": "SUMATERA BARAT", "14": "RIAU", "15": "JAMBI",
	"16": "SUMATERA SELATAN", "17": "BENGKULU", "18": "LAMPUNG", "19": "KEPULAUAN BANGKA BELITUNG",
	"21": "KEPULAUAN RIAU", "31": "DKI JAKARTA", "32": "JAWA BARAT", "33": "JAWA TENGAH",
	"34": "DI YOGYAKARTA", "35": "JAWA TIMUR", "36": "BANTEN", "51": "BALI", "52": "NUSA TENGGARA BARAT",
	"53": "NUSA TENGGARA TIMUR", "61": "KALIMANTAN BARAT", "62": "KALIMANTAN TENGAH",
	"63": "KALIMANTAN SELATAN", "64": "KALIMANTAN TIMUR", "65": "KALIMANTAN UTARA", "71": "SULAWESI UTARA",
	"72": "SULAWESI TENGAH", "73": "SULAWESI SELATAN", "74": "SULAWESI TENGGARA", "75": "GORONTALO",
	"76": "SULAWESI BARAT", "81": "MALUKU", "82": "MALUKU UTARA", "91": "PAPUA BARAT", "92": "PAPUA BARAT DAYA",
	"93": "PAPUA SELATAN", "94": "PAPUA", "95": "PAPUA TENGAH", "96": "PAPUA PEGUNUNGAN",
}

// ProvinceName returns the province name for a 2-digit NIK province code, or "".
func ProvinceName(code string) string { return provinces[code] }

// ParseNIK decodes and validates a 16-digit NIK. The 2-digit year is placed in the latest
// century that does not put the birth after ref (zero ref means now).
func ParseNIK(s string, ref time.Time) (NIK, error) {
	d := digitsOnly(strings.TrimSpace(s))
	if len(d) != 16 {
		return NIK{}, invalid("length", "a NIK has 16 digits, got %d", len(d))
	}
	n := NIK{Digits: d, Province: d[0:2], Regency: d[2:4], District: d[4:6], Serial: d[12:16]}
	if _, ok := provinces[n.Province]; !ok {
		return n, invalid("region", "unknown province code %s", n.Province)
	}
	if n.Regency == "00" || n.District == "00" {
		return n, invalid("region", "regency and district codes cannot be 00")
	}
	if n.Serial == "0000" {
		return n, invalid("serial", "serial cannot be 0000")
	}
	day := atoi2(d[6:8])
	if day > 40 {
		n.Female = true
		day -= 40
	}
	month, yy := atoi2(d[8:10]), atoi2(d[10:12])
	if ref.IsZero() {
		ref = time.Now()
	}
	year := 2000 + yy
	if year > ref.Year() {
		year -= 100
	}
	bd, ok := makeDate(year, month, day)
	if !ok {
		return n, invalid("date", "digits %s do not encode a date of birth", d[6:12])
	}
	n.BirthDate = bd
	return n, nil
}

func atoi2(s string) int { return int(s[0]-'0')*10 + int(s[1]-'0') }

// makeDate builds a UTC date and reports whether the parts name a real calendar day.
func makeDate(y, m, d int) (time.Time, bool) {
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	return t, t.Day() == d && int(t.Month()) == m
}
