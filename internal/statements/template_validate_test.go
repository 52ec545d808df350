package statements

import (
	"encoding/json"
	"testing"
)

func TestBuiltinTemplatesAreValidAndRoundTrip(t *testing.T) {
	for _, tpl := range BuiltinTemplates() {
		if fe := ValidateTemplate(tpl); fe != nil {
			t.Errorf("%s: %v", tpl.ID, fe)
		}
		b, err := json.Marshal(tpl)
		if err != nil {
			t.Fatal(err)
		}
		var back Template
		if err := json.Unmarshal(b, &back); err != nil || back.Number != tpl.Number || back.DateLayout != tpl.DateLayout || len(back.Columns) != len(tpl.Columns) {
			t.Errorf("%s: JSON round trip %s → %+v (%v)", tpl.ID, b, back, err)
		}
	}
	bad := Template{ID: "x", Bank: "B", Markers: []string{"B"}, DateLayout: "2006", Number: NumberFormat{Decimal: '.', Thousands: "."},
		Columns: []Column{{ColDate, "D"}, {ColDebit, "Out"}}, OpeningLabels: []string{"o"}, ClosingLabels: []string{"c"}}
	fe := ValidateTemplate(bad)
	for _, k := range []string{"dateLayout", "number.thousands", "columns"} {
		if fe[k] == nil {
			t.Errorf("no error for %s: %v", k, fe)
		}
	}
}
