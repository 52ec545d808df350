package statements

import (
	"encoding/json"
	"errors"
	"time"
)

// numberFormatJSON is how a NumberFormat travels: {"decimal": ",", "thousands": "."}.
type numberFormatJSON struct {
	Decimal   string `json:"decimal"`
	Thousands string `json:"thousands"`
}

// MarshalJSON writes the separators as strings.
func (f NumberFormat) MarshalJSON() ([]byte, error) {
	d := ""
	if f.Decimal != 0 {
		d = string(rune(f.Decimal))
	}
	return json.Marshal(numberFormatJSON{Decimal: d, Thousands: f.Thousands})
}

// UnmarshalJSON reads the separators; the decimal separator is "." or ",".
func (f *NumberFormat) UnmarshalJSON(b []byte) error {
	var j numberFormatJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if j.Decimal != "." && j.Decimal != "," {
		return errors.New(`decimal must be "." or ","`)
	}
	f.Decimal, f.Thousands = j.Decimal[0], j.Thousands
	return nil
}

// ValidateTemplate checks an organisation's template and returns the field errors (nil
// when it is usable): an id and bank, a date layout that round-trips, a number format
// whose separators differ, and columns with a date, a description and amounts (a signed
// amount column, or debit and credit columns).
func ValidateTemplate(t Template) map[string][]string {
	fe := map[string][]string{}
	add := func(k, msg string) { fe[k] = append(fe[k], msg) }
	if t.ID == "" || len(t.ID) > 64 {
		add("id", "must be 1 to 64 characters")
	}
	if t.Bank == "" {
		add("bank", "is required")
	}
	if len(t.Markers) == 0 && len(t.Producers) == 0 {
		add("markers", "give at least one marker or producer, so the bank can be detected")
	}
	probe := time.Date(2024, 11, 23, 0, 0, 0, 0, time.UTC)
	if d, err := time.Parse(t.DateLayout, probe.Format(t.DateLayout)); t.DateLayout == "" || err != nil || !d.Equal(probe) {
		add("dateLayout", `must be a Go date layout with day, month and year, e.g. "02.01.2006"`)
	}
	if t.Number.Decimal != '.' && t.Number.Decimal != ',' {
		add("number.decimal", `must be "." or ","`)
	}
	for _, r := range t.Number.Thousands {
		if r == rune(t.Number.Decimal) || r >= '0' && r <= '9' {
			add("number.thousands", "must not contain the decimal separator or digits")
		}
	}
	kinds := map[ColumnKind]int{}
	for _, c := range t.Columns {
		kinds[c.Kind]++
		if c.Header == "" {
			add("columns", "every column needs its printed header")
		}
		switch c.Kind {
		case ColDate, ColValueDate, ColDescription, ColDebit, ColCredit, ColAmount, ColBalance:
		default:
			add("columns", "unknown column kind "+string(c.Kind))
		}
	}
	for k, n := range kinds {
		if n > 1 {
			add("columns", "the column kind "+string(k)+" is given twice")
		}
	}
	if kinds[ColDate] == 0 || kinds[ColDescription] == 0 {
		add("columns", "a date and a description column are required")
	}
	if kinds[ColAmount] == 0 && (kinds[ColDebit] == 0 || kinds[ColCredit] == 0) {
		add("columns", "a signed amount column, or debit and credit columns, are required")
	}
	if len(t.OpeningLabels) == 0 || len(t.ClosingLabels) == 0 {
		add("openingLabels", "the labels of the opening and closing balances are required")
	}
	if len(fe) == 0 {
		return nil
	}
	return fe
}
