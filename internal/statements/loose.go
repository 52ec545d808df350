package statements

import "strings"

// parseLoose reads machine-written amounts (CSV cells, OFX TRNAMT, CAMT Amt): like
// ParseAmount, but zero, one or more decimals are accepted, as long as the digits past the
// second are zeros (an amount is never rounded).
func parseLoose(s string, f NumberFormat) (Amount, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, ErrAmount
	}
	core := strings.TrimRight(strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(s, ")"), "-")), " ")
	i := strings.LastIndexByte(core, f.Decimal)
	switch {
	case i < 0:
		return ParseAmount(insertDecimals(s, len(core), string(f.Decimal)+"00"), f)
	case len(core)-i-1 == 1:
		return ParseAmount(insertDecimals(s, len(core), "0"), f)
	case len(core)-i-1 > 2:
		extra := core[i+3:]
		if strings.Trim(extra, "0") != "" {
			return 0, ErrAmount
		}
		return ParseAmount(s[:i+3]+s[len(core):], f)
	}
	return ParseAmount(s, f)
}

// insertDecimals inserts add at byte position at of s.
func insertDecimals(s string, at int, add string) string { return s[:at] + add + s[at:] }
