package screening

import (
	"io"
	"regexp"
	"strings"
)

// OFAC legacy CSV: sdn.csv (12 fields), alt.csv (5), add.csv (6), no header, "-0-" for null.
const (
	ofacSDNFields = 12
	ofacAltFields = 5
	ofacAddFields = 6
)

var (
	reOFACDOB  = regexp.MustCompile(`(?i)\bDOB ([^;]+)`)
	reOFACNat  = regexp.MustCompile(`(?i)\b(?:nationality|citizen) ([^;(]+)`)
	reOFACAKA  = regexp.MustCompile(`(?i)\ba\.k\.a\. '([^']+)'`)
	ofacRanges = regexp.MustCompile(`(?i)\s+to\s+`)
)

func ofacNull(s string) string {
	s = strings.TrimSpace(s)
	if s == "-0-" {
		return ""
	}
	return s
}

// ofacName turns "LAST, First Middle" into "First Middle LAST" for people.
func ofacName(s string, t EntityType) string {
	if t != Person {
		return s
	}
	if i := strings.Index(s, ", "); i > 0 {
		return strings.TrimSpace(s[i+2:]) + " " + s[:i]
	}
	return s
}

// LoadOFAC reads OFAC's legacy SDN CSV files; alt and add may be nil. An alias or address
// naming an unknown entity number is an error: the files belong to different versions.
func LoadOFAC(sdn, alt, add io.Reader) ([]Entity, error) {
	var out []Entity
	byNum := map[string]int{}
	rows := newCSVRows("ofac-sdn", sdn, ofacSDNFields)
	for {
		rec, line, err := rows.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		num := strings.TrimSpace(rec[0])
		name := ofacNull(rec[1])
		if num == "" || name == "" {
			return nil, perr("ofac-sdn", line, "entity number and name are required")
		}
		if _, dup := byNum[num]; dup {
			return nil, perr("ofac-sdn", line, "duplicate entity number %s", num)
		}
		t := Organization
		switch strings.ToLower(ofacNull(rec[2])) {
		case "individual":
			t = Person
		case "vessel":
			t = Vessel
		case "aircraft":
			t = Aircraft
		}
		e := Entity{ID: num, Type: t, Name: ofacName(name, t), Remarks: ofacNull(rec[11])}
		if p := ofacNull(rec[3]); p != "" {
			for _, prog := range strings.Split(strings.Trim(p, "[] "), "] [") {
				e.Programs = addString(e.Programs, strings.TrimSpace(prog))
			}
		}
		ofacRemarks(&e)
		byNum[num] = len(out)
		out = append(out, e)
	}
	// alt.csv and add.csv both name their entity by number in the first field.
	attach := func(format string, r io.Reader, fields int, what string, apply func(e *Entity, rec []string)) error {
		if r == nil {
			return nil
		}
		rows := newCSVRows(format, r, fields)
		for {
			rec, line, err := rows.next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			i, ok := byNum[strings.TrimSpace(rec[0])]
			if !ok {
				return perr(format, line, "%s of unknown entity %s", what, truncate(strings.TrimSpace(rec[0]), 40))
			}
			apply(&out[i], rec)
		}
	}
	if err := attach("ofac-alt", alt, ofacAltFields, "alias", func(e *Entity, rec []string) {
		if n := ofacNull(rec[3]); n != "" {
			e.Aliases = addString(e.Aliases, ofacName(n, e.Type))
		}
	}); err != nil {
		return nil, err
	}
	if err := attach("ofac-add", add, ofacAddFields, "address", func(e *Entity, rec []string) {
		if c := ofacNull(rec[4]); c != "" {
			e.Countries = addCountry(e.Countries, c)
		}
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// ofacRemarks reads birth dates, nationalities and quoted aliases from the remarks field.
func ofacRemarks(e *Entity) {
	for _, m := range reOFACDOB.FindAllStringSubmatch(e.Remarks, -1) {
		for _, part := range ofacRanges.Split(strings.TrimSpace(m[1]), -1) {
			if d, err := ParseDate(strings.TrimRight(part, ". ")); err == nil {
				e.BirthDates = addDate(e.BirthDates, d)
			}
		}
	}
	for _, m := range reOFACNat.FindAllStringSubmatch(e.Remarks, -1) {
		e.Countries = addCountry(e.Countries, strings.TrimSpace(m[1]))
	}
	for _, m := range reOFACAKA.FindAllStringSubmatch(e.Remarks, -1) {
		e.Aliases = addString(e.Aliases, strings.TrimSpace(m[1]))
	}
}
