package documents

import (
	"strings"
	"time"
)

// mrzCandidate reports whether a line looks like an MRZ line: long, and made of filler
// characters or starting with "P<".
func mrzCandidate(l Line) (string, bool) {
	c := cleanMRZLine(l.Text())
	return c, len(c) >= 36 && (strings.Count(c, "<") >= 3 || strings.HasPrefix(c, "P<"))
}

// findTD3 finds the two MRZ lines of a passport page (the last pair of MRZ-like lines whose
// first starts with "P").
func findTD3(lines []Line) (l1, l2 string, w1, w2 []Word, ok bool) {
	for i := len(lines) - 2; i >= 0; i-- {
		a, okA := mrzCandidate(lines[i])
		b, okB := mrzCandidate(lines[i+1])
		if okA && okB && strings.HasPrefix(a, "P") {
			return a, b, lines[i].Words, lines[i+1].Words, true
		}
	}
	return "", "", nil, nil, false
}

// fitLine1 pads or trims the first MRZ line to 44 characters (OCR often miscounts the
// trailing filler).
func fitLine1(l string) string {
	if len(l) < 44 {
		return l + strings.Repeat("<", 44-len(l))
	}
	return l[:44]
}

// bestTD3 parses the MRZ, and when the second line has one character too many or too few
// (OCR merged or split a character), tries every single deletion or filler insertion and
// keeps the reading with the fewest failed check digits.
func bestTD3(l1, l2 string, ref time.Time) (MRZ, bool, error) {
	l1 = fitLine1(l1)
	best, err := ParseTD3(l1, l2, ref)
	if err == nil && best.Valid() {
		return best, false, nil
	}
	var variants []string
	switch len(l2) {
	case 45:
		for i := 0; i < len(l2); i++ {
			variants = append(variants, l2[:i]+l2[i+1:])
		}
	case 43:
		for i := 0; i <= len(l2); i++ {
			variants = append(variants, l2[:i]+"<"+l2[i:])
		}
	}
	repaired := false
	for _, v := range variants {
		m, verr := ParseTD3(l1, v, ref)
		if verr != nil {
			continue
		}
		if err != nil || len(m.Failed) < len(best.Failed) {
			best, err, repaired = m, nil, true
		}
	}
	return best, repaired, err
}

// extractPassport reads a passport data page from its MRZ: document_number, surname,
// given_names, nationality, issuing_state, birth_date, sex, expiry_date, personal_number.
// Check digits validate the number and dates; the names, which have none, are compared
// with the visual zone's "Full Name".
func extractPassport(x *Extraction, lines []Line, opts ExtractOptions) {
	required := []string{"document_number", "surname", "nationality", "birth_date", "expiry_date"}
	l1, l2, w1, w2, ok := findTD3(lines)
	var m MRZ
	var repaired bool
	var err error
	if ok {
		m, repaired, err = bestTD3(l1, l2, opts.Now)
	}
	if !ok || err != nil {
		for _, name := range required {
			x.missing(name, true)
		}
		x.flag("mrz_not_found")
		return
	}
	c1, c2 := minConf(w1), minConf(w2)
	// A failed composite check means one of the parts it covers is wrong even though its
	// own check digit passed (a 1 in 10 chance each): none of them is confirmed then.
	composite := !m.FailedCheck("composite")
	field := func(name, value string, conf float64, check string) {
		f := Field{Value: value, OCRConfidence: conf, Label: LabelMRZ, Repaired: repaired && conf == c2}
		for _, r := range required {
			f.Required = f.Required || r == name
		}
		switch {
		case check == "":
		case m.FailedCheck(check):
			f.fail("mrz", "check_digit")
		case composite:
			f.setValid("mrz", nil)
		}
		x.set(name, f)
	}
	date := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.Format(time.DateOnly)
	}
	field("document_number", m.DocumentNumber, c2, "document_number")
	field("surname", m.Surname, c1, "")
	field("given_names", m.GivenNames, c1, "")
	field("nationality", m.Nationality, c2, "")
	field("issuing_state", m.IssuingState, c1, "")
	field("birth_date", date(m.BirthDate), c2, "birth_date")
	field("sex", m.Sex, c2, "")
	field("expiry_date", date(m.ExpiryDate), c2, "expiry_date")
	if m.PersonalNumber != "" {
		field("personal_number", m.PersonalNumber, c2, "personal_number")
	}
	if !composite {
		x.flag("mrz_composite_check_failed")
	}
	// Filler only pads a document number at its end: "Q850680<4" is a misaligned read.
	if f := x.Fields["document_number"]; strings.Contains(f.Value, "<") {
		f.fail("mrz", "format")
		x.set("document_number", f)
	}
	for _, name := range []string{"nationality", "issuing_state"} {
		if f := x.Fields[name]; !isCountryCode(f.Value) {
			f.fail("mrz", "format")
			x.set(name, f)
		}
	}
	// Nationality and sex have no check digit of their own; when every check of their line
	// passed without realigning it, the line was read well.
	if m.Valid() && !repaired {
		for _, name := range []string{"nationality", "sex"} {
			if f := x.Fields[name]; f.Valid == nil {
				f.setValid("mrz_line", nil)
				x.set(name, f)
			}
		}
	}

	// Names carry no check digit: confirm them against the visual zone when it was read.
	if visual, _, _, ok := labelled(lines, "Full Name", nil); ok {
		seen := strings.Fields(strings.ToUpper(visual.Value))
		want := strings.Fields(m.Surname + " " + m.GivenNames)
		for _, name := range []string{"surname", "given_names"} {
			f := x.Fields[name]
			if sameWords(seen, want) {
				// Two reads agree; the better one stands for the value.
				f.OCRConfidence = max(f.OCRConfidence, visual.OCRConfidence)
				f.setValid("visual_zone", nil)
			} else {
				f.fail("visual_zone", "visual_mismatch")
				x.flag("mrz_name_mismatch")
			}
			x.set(name, f)
		}
	}
	if !m.ExpiryDate.IsZero() && m.ExpiryDate.Before(opts.Now) {
		x.flag("expired")
	}
}

func isCountryCode(s string) bool {
	if len(s) < 1 || len(s) > 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// sameWords reports whether two lists hold the same words, in any order.
func sameWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, w := range a {
		count[w]++
	}
	for _, w := range b {
		if count[w] == 0 {
			return false
		}
		count[w]--
	}
	return true
}
