package statements

import "testing"

func TestParseAmount(t *testing.T) {
	cases := []struct {
		in   string
		nf   NumberFormat
		want Amount
		ok   bool
	}{
		{"1,234.56", FormatUS, 123456, true},
		{"-1,234.56", FormatUS, -123456, true},
		{"(12.00)", FormatUS, -1200, true},
		{"12.00-", FormatUS, -1200, true},
		{"12.00 DR", FormatUS, -1200, true},
		{"12.00CR", FormatUS, 1200, true},
		{"1.234.567,89", FormatEU, 123456789, true},
		{"-0,05", FormatEU, -5, true},
		{"1'234.50", FormatCH, 123450, true},
		{"1’234.50", FormatCH, 123450, true},
		{"12 345,67", FormatFR, 1234567, true},
		{"−3,00", FormatFR, -300, true},
		{"1,23.45", FormatUS, 0, false},              // bad grouping
		{"1234.5", FormatUS, 0, false},               // one decimal on a printed statement
		{"12,34", FormatUS, 0, false},                // wrong decimal separator
		{"", FormatUS, 0, false},                     // nothing
		{"1e5", FormatUS, 0, false},                  // not money
		{"99999999999999999.00", FormatUS, 0, false}, // would overflow
	}
	for _, c := range cases {
		got, err := ParseAmount(c.in, c.nf)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseAmount(%q) = %v, %v; want %v, ok=%v", c.in, got, err, c.want, c.ok)
		}
		if c.ok {
			if back, err := ParseAmount(FormatAmount(got, c.nf), c.nf); err != nil || back != got {
				t.Errorf("FormatAmount(%v) = %q does not read back (%v)", got, FormatAmount(got, c.nf), err)
			}
		}
	}
}

func TestParseLoose(t *testing.T) {
	for in, want := range map[string]Amount{"12": 1200, "-12.5": -1250, "12.500": 1250, "0.01": 1} {
		if got, err := parseLoose(in, FormatPlain); err != nil || got != want {
			t.Errorf("parseLoose(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseLoose("12.345", FormatPlain); err == nil {
		t.Error("parseLoose rounded 12.345")
	}
}
