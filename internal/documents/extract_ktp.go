package documents

import (
	"regexp"
	"strings"
	"time"
)

// ktpLabels are the labels printed on a KTP; a value stops at any of them.
var ktpLabels = []string{
	"NIK", "Nama", "Tempat/Tgl Lahir", "Jenis Kelamin", "Gol. Darah", "Alamat", "RT/RW", "Kel/Desa",
	"Kecamatan", "Agama", "Status Perkawinan", "Pekerjaan", "Kewarganegaraan", "Berlaku Hingga",
}

var (
	nikRe  = regexp.MustCompile(`\b\d{16}\b`)
	rtrwRe = regexp.MustCompile(`^(\d{3})/(\d{3})$`)
)

// ktpText are the plain text fields of a KTP: field name, label, required.
var ktpText = []struct {
	name, label string
	required    bool
	digits      bool
}{
	{"name", "Nama", true, false},
	{"address", "Alamat", true, true},
	{"village", "Kel/Desa", false, false},
	{"district", "Kecamatan", false, false},
	{"religion", "Agama", false, false},
	{"marital_status", "Status Perkawinan", false, false},
	{"occupation", "Pekerjaan", false, false},
	{"nationality", "Kewarganegaraan", false, false},
	{"valid_until", "Berlaku Hingga", false, true},
	{"blood_type", "Gol. Darah", false, false},
}

// extractKTP reads an identity card: nik, name, birth_place, birth_date, gender, address,
// rt_rw, village, district, religion, marital_status, occupation, nationality,
// valid_until, blood_type, province, city; and cross-checks the NIK against the printed
// birth date, gender and province.
func extractKTP(x *Extraction, lines []Line, opts ExtractOptions) {
	var nik *NIK
	f, words, _, ok := labelled(lines, "NIK", ktpLabels)
	if ok {
		v, repaired := numberValue(words)
		f.Value, f.Repaired = digitsOnly(numberPart(v)), repaired
		ok = f.Value != ""
	}
	if !ok {
		if m, found := findPattern(lines, 0, nikRe, nil); found {
			f, ok = Field{Value: m.text, OCRConfidence: minConf(m.words), Label: LabelPattern}, true
		}
	}
	if ok {
		n, err := ParseNIK(f.Value, opts.Now)
		if err == nil {
			nik = &n
		}
		f.setValid("nik", err)
		f.Required = true
		x.set("nik", f)
	} else {
		x.missing("nik", true)
	}

	for _, t := range ktpText {
		f, _, _, ok := labelled(lines, t.label, ktpLabels)
		if !ok {
			x.missing(t.name, t.required)
			continue
		}
		f = textField(f, t.digits)
		f.Required = t.required
		x.set(t.name, f)
	}

	var birth time.Time
	f, words, _, ok = labelled(lines, "Tempat/Tgl Lahir", ktpLabels)
	if ok {
		place, date := splitPlaceDate(words)
		pf := textField(Field{Value: wordsText(place), OCRConfidence: minConf(place), Label: f.Label}, false)
		x.set("birth_place", pf)
		df := Field{Value: wordsText(date), OCRConfidence: minConf(date), Label: f.Label, Required: true}
		df, birth = dateField(df)
		x.set("birth_date", df)
	} else {
		x.missing("birth_place", false)
		x.missing("birth_date", true)
	}

	female, genderKnown := false, false
	if f, _, _, ok = labelled(lines, "Jenis Kelamin", ktpLabels); ok {
		f = textField(f, false)
		switch g := strings.ReplaceAll(f.Value, " ", ""); {
		case closeTo(g, "PEREMPUAN"):
			f.Value, female, genderKnown = "PEREMPUAN", true, true
			f.setValid("gender", nil)
		case closeTo(g, "LAKI-LAKI"), closeTo(g, "LAKILAKI"):
			f.Value, genderKnown = "LAKI-LAKI", true
			f.setValid("gender", nil)
		default:
			f.fail("gender", "unknown_gender")
		}
		x.set("gender", f)
	} else {
		x.missing("gender", false)
	}

	if f, words, _, ok = labelled(lines, "RT/RW", ktpLabels); ok {
		v, repaired := numberValue(words)
		f.Value, f.Repaired = v, repaired
		if rtrwRe.MatchString(v) {
			f.setValid("rt_rw", nil)
		} else {
			f.fail("rt_rw", "format")
		}
		x.set("rt_rw", f)
	}

	province, city := headerLine(lines, "PROVINSI"), headerLine(lines, "KOTA", "KABUPATEN")
	if province.Label != LabelMissing {
		province.Value = strings.TrimSpace(strings.TrimPrefix(province.Value, "PROVINSI"))
		x.set("province", province)
	}
	if city.Label != LabelMissing {
		x.set("city", city)
	}

	// Cross-checks: the NIK encodes the birth date (women's day + 40) and the province.
	if nik == nil {
		return
	}
	if bd, ok := x.Fields["birth_date"]; ok && !birth.IsZero() {
		if birth.Day() != nik.BirthDate.Day() || birth.Month() != nik.BirthDate.Month() || birth.Year()%100 != nik.BirthDate.Year()%100 {
			bd.fail("nik_crosscheck", "nik_mismatch")
			x.flag("nik_birth_date_mismatch")
		} else {
			// Two independent reads agree: the printed date and the digits of the NIK.
			bd.setValid("nik_crosscheck", nil)
			nf := x.Fields["nik"]
			nf.setValid("nik_crosscheck", nil)
			x.set("nik", nf)
		}
		x.set("birth_date", bd)
	}
	if g, ok := x.Fields["gender"]; ok && genderKnown && female != nik.Female {
		g.fail("nik_crosscheck", "nik_mismatch")
		x.set("gender", g)
		x.flag("nik_gender_mismatch")
	}
	if p, ok := x.Fields["province"]; ok && p.Value != "" {
		if want := ProvinceName(nik.Province); want != "" && !closeTo(strings.ReplaceAll(p.Value, " ", ""), strings.ReplaceAll(want, " ", "")) {
			p.fail("nik_crosscheck", "nik_mismatch")
			x.set("province", p)
			x.flag("nik_province_mismatch")
		}
	}
}

// splitPlaceDate splits "JAKARTA, 05-06-1990" into the place words and the date words.
func splitPlaceDate(words []Word) (place, date []Word) {
	for i, w := range words {
		if strings.HasSuffix(w.Text, ",") {
			p := append([]Word(nil), words[:i+1]...)
			p[i].Text = strings.TrimSuffix(p[i].Text, ",")
			return p, words[i+1:]
		}
		if strings.Contains(w.Text, ",") {
			before, after, _ := strings.Cut(w.Text, ",")
			p := append([]Word(nil), words[:i+1]...)
			p[i].Text = before
			d := append([]Word{{Text: after, Conf: w.Conf}}, words[i+1:]...)
			return p, d
		}
	}
	if n := len(words); n > 1 {
		return words[:n-1], words[n-1:]
	}
	return nil, words
}

// headerLine finds a line that starts with one of the words (e.g. "PROVINSI DKI JAKARTA").
func headerLine(lines []Line, first ...string) Field {
	for _, l := range lines {
		if len(l.Words) == 0 {
			continue
		}
		tok := normToken(l.Words[0].Text)
		for _, f := range first {
			if exact, ok := tokenMatch(tok, f); ok {
				m := LabelFuzzy
				if exact {
					m = LabelExact
				}
				return textField(Field{Value: l.Text(), OCRConfidence: minConf(l.Words), Label: m}, false)
			}
		}
	}
	return Field{Label: LabelMissing}
}

// closeTo compares two words allowing one OCR error per 5 characters.
func closeTo(got, want string) bool {
	return editDistance(got, want) <= len(want)/5
}
