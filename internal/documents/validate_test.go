package documents_test

import (
	"errors"
	"testing"
	"time"

	docintel "github.com/svcplatform/svc/internal/documents"
)

var ref = time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)

func TestLuhn(t *testing.T) {
	tests := []struct {
		digits string
		valid  bool
	}{
		{"79927398713", true}, // the textbook example
		{"79927398710", false},
		{"092542943", true}, // first 9 digits of NPWP 09.254.294.3-407.000: 3+8+9+4+4+1+2+9+0 = 40
		{"012345678", false},
		{"012345674", true},
		{"1", false},
		{"12a4", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := docintel.LuhnValid(tt.digits); got != tt.valid {
			t.Errorf("LuhnValid(%q) = %v, want %v", tt.digits, got, tt.valid)
		}
	}
	for payload, want := range map[string]byte{"01234567": '4', "09254294": '3', "7992739871": '3'} {
		got, err := docintel.LuhnCheckDigit(payload)
		if err != nil || got != want {
			t.Errorf("LuhnCheckDigit(%q) = %c, %v; want %c", payload, got, err, want)
		}
	}
	if _, err := docintel.LuhnCheckDigit("12x"); err == nil {
		t.Error("LuhnCheckDigit accepted a non-digit")
	}
}

func TestParseNPWP(t *testing.T) {
	tests := []struct {
		in        string
		form      docintel.NPWPForm
		canonical string
		code      string // "" when valid
	}{
		{"09.254.294.3-407.000", docintel.NPWP15, "09.254.294.3-407.000", ""},
		{"092542943407000", docintel.NPWP15, "09.254.294.3-407.000", ""},
		{"09.254.294.3 - 407.000", docintel.NPWP15, "09.254.294.3-407.000", ""},
		{"01.234.567.4-012.000", docintel.NPWP15, "01.234.567.4-012.000", ""},
		{"01.234.567.8-012.000", docintel.NPWP15, "", "check_digit"},
		{"09.254.294.8-407.000", docintel.NPWP15, "", "check_digit"},
		{"0092542943407000", docintel.NPWP16Legacy, "0092542943407000", ""},
		{"0012345678012000", docintel.NPWP16Legacy, "", "check_digit"},
		{"3174054506900003", docintel.NPWP16NIK, "3174054506900003", ""},
		{"3174053206900003", docintel.NPWP16NIK, "", "date"},
		{"09.254.294.3-407.00", "", "", "length"},
		{"NPWP 09.254", "", "", "format"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			n, err := docintel.ParseNPWP(tt.in, ref)
			if tt.code != "" {
				var ve *docintel.ValidationError
				if !errors.As(err, &ve) || ve.Code != tt.code {
					t.Fatalf("ParseNPWP(%q) error = %v, want code %s", tt.in, err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseNPWP(%q): %v", tt.in, err)
			}
			if n.Form != tt.form || n.Canonical() != tt.canonical {
				t.Errorf("ParseNPWP(%q) = %s %s, want %s %s", tt.in, n.Form, n.Canonical(), tt.form, tt.canonical)
			}
		})
	}
	n, _ := docintel.ParseNPWP("09.254.294.3-407.000", ref)
	if n.TaxType != "09" || n.Serial != "254294" || n.Check != "3" || n.Office != "407" || n.Branch != "000" {
		t.Errorf("parts = %+v", n)
	}
	nik, _ := docintel.ParseNPWP("3174054506900003", ref)
	if nik.NIK == nil || !nik.NIK.Female {
		t.Errorf("16-digit NIK form not decoded: %+v", nik)
	}
}

func TestParseNIK(t *testing.T) {
	date := func(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		nik      string
		birth    time.Time
		female   bool
		province string
		code     string
	}{
		{"3174054506900003", date(1990, 6, 5), true, "31", ""},   // woman: day 45 = 5 + 40
		{"3174051203850007", date(1985, 3, 12), false, "31", ""}, // man
		{"3273017101050001", date(2005, 1, 31), true, "32", ""},  // 2-digit year 05 is 2005 (not after 2025)
		{"3273013112990002", date(1999, 12, 31), false, "32", ""},
		{"5171042902000001", date(2000, 2, 29), false, "51", ""}, // leap day
		{"5171042902010001", time.Time{}, false, "", "date"},     // 2001 has no 29 February
		{"3174053206900003", time.Time{}, false, "", "date"},     // day 32
		{"3174057206900003", time.Time{}, false, "", "date"},     // day 72 = 32 + 40
		{"3174051213900003", time.Time{}, false, "", "date"},     // month 13
		{"9974054506900003", time.Time{}, false, "", "region"},
		{"3100054506900003", time.Time{}, false, "", "region"},
		{"3174054506900000", time.Time{}, false, "", "serial"},
		{"317405450690000", time.Time{}, false, "", "length"},
	}
	for _, tt := range tests {
		t.Run(tt.nik, func(t *testing.T) {
			n, err := docintel.ParseNIK(tt.nik, ref)
			if tt.code != "" {
				var ve *docintel.ValidationError
				if !errors.As(err, &ve) || ve.Code != tt.code {
					t.Fatalf("ParseNIK(%q) error = %v, want code %s", tt.nik, err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !n.BirthDate.Equal(tt.birth) || n.Female != tt.female || n.Province != tt.province {
				t.Errorf("ParseNIK(%q) = %s female=%v province=%s", tt.nik, n.BirthDate.Format(time.DateOnly), n.Female, n.Province)
			}
		})
	}
}

func TestMRZCheckDigit(t *testing.T) {
	// Values from the ICAO Doc 9303 part 4 specimen passport (Anna Maria Eriksson).
	tests := map[string]byte{
		"L898902C3":      '6',
		"740812":         '2',
		"120415":         '9',
		"ZE184226B<<<<<": '1',
		"L898902C3674081221204159ZE184226B<<<<<1": '0', // composite
		"<<<<<<<<<<<<<<": '0',
	}
	for in, want := range tests {
		got, err := docintel.MRZCheckDigit(in)
		if err != nil || got != want {
			t.Errorf("MRZCheckDigit(%q) = %c, %v; want %c", in, got, err, want)
		}
	}
	if _, err := docintel.MRZCheckDigit("ab"); err == nil {
		t.Error("lower case accepted")
	}
}

func TestParseTD3(t *testing.T) {
	const (
		l1 = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"
		l2 = "L898902C36UTO7408122F1204159ZE184226B<<<<<10"
	)
	m, err := docintel.ParseTD3(l1, l2, ref)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Valid() {
		t.Fatalf("specimen failed checks %v", m.Failed)
	}
	if m.Surname != "ERIKSSON" || m.GivenNames != "ANNA MARIA" || m.DocumentNumber != "L898902C3" ||
		m.Nationality != "UTO" || m.IssuingState != "UTO" || m.Sex != "F" || m.PersonalNumber != "ZE184226B" {
		t.Errorf("parsed %+v", m)
	}
	if m.BirthDate.Format(time.DateOnly) != "1974-08-12" || m.ExpiryDate.Format(time.DateOnly) != "2012-04-15" {
		t.Errorf("dates %s %s", m.BirthDate, m.ExpiryDate)
	}

	tests := []struct {
		name   string
		l2     string
		failed []string
	}{
		{"document number digit changed", "L898902C46UTO7408122F1204159ZE184226B<<<<<10", []string{"document_number", "composite"}},
		{"birth date changed", "L898902C36UTO7408132F1204159ZE184226B<<<<<10", []string{"birth_date", "composite"}},
		{"expiry check digit wrong", "L898902C36UTO7408122F1204158ZE184226B<<<<<10", []string{"expiry_date", "composite"}},
		{"composite wrong", "L898902C36UTO7408122F1204159ZE184226B<<<<<11", []string{"composite"}},
		{"OCR letter O in a date is repaired", "L898902C36UTO74O8122F12O4159ZE184226B<<<<<1O", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := docintel.ParseTD3(l1, tt.l2, ref)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Failed) != len(tt.failed) {
				t.Fatalf("failed = %v, want %v", m.Failed, tt.failed)
			}
			for _, f := range tt.failed {
				if !m.FailedCheck(f) {
					t.Errorf("check %s did not fail (failed: %v)", f, m.Failed)
				}
			}
		})
	}
	if _, err := docintel.ParseTD3(l1, l2[:40], ref); err == nil {
		t.Error("short line accepted")
	}
}
