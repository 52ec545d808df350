package documents

import (
	"regexp"
)

// npwpLabels are the labels printed on an NPWP card; a value stops at any of them.
var npwpLabels = []string{"NPWP", "Nama", "NIK", "Alamat", "Tanggal Terdaftar", "Terdaftar", "KPP"}

// npwpNumberRe finds a formatted 15-digit NPWP number by its shape when its label was not
// read; npwpDigitsRe finds a bare 15- or 16-digit one, on a line that is not the NIK's.
var (
	npwpNumberRe = regexp.MustCompile(`\b\d{2}[.,] ?\d{3}[.,] ?\d{3}[.,] ?\d ?[-.] ?\d{3}[.,] ?\d{3}\b`)
	npwpDigitsRe = regexp.MustCompile(`\b\d{15,16}\b`)
)

// isNIKLine reports whether a line is the card's NIK line (its 16 digits are not the NPWP).
func isNIKLine(l Line) bool { return startsLabel(l.Words, []string{"NIK"}) }

// numberPart keeps the leading run of a value that can belong to a printed number.
func numberPart(s string) string {
	for i, r := range s {
		if !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '/') {
			return s[:i]
		}
	}
	return s
}

// extractNPWP reads an NPWP card: npwp_number, name, address, registered_at.
func extractNPWP(x *Extraction, lines []Line, opts ExtractOptions) {
	// npwp_number: after the "NPWP" label; when no label was read, anywhere by its shape
	// (a formatted number first, then bare digits not on the NIK line). A label whose value
	// cannot be read leaves the number missing rather than borrowing another number.
	num, words, numLine, labelFound := labelled(lines, "NPWP", nil)
	ok := labelFound
	if ok {
		v, repaired := numberValue(words)
		num.Value, num.Repaired = numberPart(v), repaired
		ok = len(digitsOnly(num.Value)) >= 15
	}
	if !labelFound {
		m, found := findPattern(lines, 0, npwpNumberRe, nil)
		if !found {
			m, found = findPattern(lines, 0, npwpDigitsRe, isNIKLine)
		}
		if found {
			num = Field{Value: dashFolder.Replace(m.text), OCRConfidence: minConf(m.words), Label: LabelPattern}
			numLine, ok = m.line, true
		}
	}
	if ok {
		n, err := ParseNPWP(num.Value, opts.Now)
		if err == nil {
			num.Value = n.Canonical()
		}
		num.setValid("npwp", err)
		num.Required = true
		x.set("npwp_number", num)
	} else {
		x.missing("npwp_number", true)
		numLine = -1
	}

	// name: after "Nama", else the line under the number (older cards print no label).
	name, _, nameLine, ok := labelled(lines, "Nama", npwpLabels)
	if !ok && numLine >= 0 && numLine+1 < len(lines) && !startsLabel(lines[numLine+1].Words, npwpLabels) {
		nameLine = numLine + 1
		w := lines[nameLine].Words
		name, ok = Field{Value: wordsText(w), OCRConfidence: minConf(w), Label: LabelPosition}, true
	}
	x.put("name", textField(name, false), ok, true)

	// address: after "Alamat" with its continuation lines, else the lines between the
	// name (and NIK) and the tax office line.
	addr, words, addrLine, ok := labelled(lines, "Alamat", npwpLabels)
	if !ok && nameLine >= 0 {
		start := nameLine + 1
		if start < len(lines) && startsLabel(lines[start].Words, []string{"NIK"}) {
			start++
		}
		if start < len(lines) && !isAddressEnd(lines[start]) {
			addrLine, words = start, lines[start].Words
			addr, ok = Field{Value: wordsText(words), Label: LabelPosition}, true
		}
	}
	if ok {
		for next := addrLine + 1; next < len(lines) && next <= addrLine+2 && !isAddressEnd(lines[next]); next++ {
			words = append(words, lines[next].Words...)
		}
		addr.Value, addr.OCRConfidence = wordsText(words), minConf(words)
	}
	x.put("address", textField(addr, true), ok, true)

	// registered_at: "Tanggal Terdaftar" (or just "Terdaftar").
	reg, _, _, ok := labelled(lines, "Tanggal Terdaftar", nil)
	if !ok {
		reg, _, _, ok = labelled(lines, "Terdaftar", nil)
	}
	if ok {
		reg, _ = dateField(reg)
	}
	x.put("registered_at", reg, ok, false)
}

// isAddressEnd reports whether a line ends an address block: another label, the tax office
// (KPP) line, or a line that starts with a date.
func isAddressEnd(l Line) bool {
	if len(l.Words) == 0 || startsLabel(l.Words, npwpLabels) {
		return true
	}
	first := normToken(l.Words[0].Text)
	return first == "KPP" || first == "TANGGAL" || first == "DIREKTORAT" || first == "KEMENTERIAN"
}
