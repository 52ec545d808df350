package screening

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

type unAlias struct {
	Quality string `xml:"QUALITY"`
	Name    string `xml:"ALIAS_NAME"`
}

type unDate struct {
	Type     string `xml:"TYPE_OF_DATE"`
	Date     string `xml:"DATE"`
	Year     string `xml:"YEAR"`
	FromYear string `xml:"FROM_YEAR"`
	ToYear   string `xml:"TO_YEAR"`
}

type unRecord struct {
	DataID    string    `xml:"DATAID"`
	First     string    `xml:"FIRST_NAME"`
	Second    string    `xml:"SECOND_NAME"`
	Third     string    `xml:"THIRD_NAME"`
	Fourth    string    `xml:"FOURTH_NAME"`
	ListType  string    `xml:"UN_LIST_TYPE"`
	Original  string    `xml:"NAME_ORIGINAL_SCRIPT"`
	Comments  string    `xml:"COMMENTS1"`
	Nation    []string  `xml:"NATIONALITY>VALUE"`
	IAliases  []unAlias `xml:"INDIVIDUAL_ALIAS"`
	EAliases  []unAlias `xml:"ENTITY_ALIAS"`
	IAddress  []string  `xml:"INDIVIDUAL_ADDRESS>COUNTRY"`
	EAddress  []string  `xml:"ENTITY_ADDRESS>COUNTRY"`
	BirthDate []unDate  `xml:"INDIVIDUAL_DATE_OF_BIRTH"`
}

// LoadUN reads the UN Security Council consolidated list XML, one INDIVIDUAL or ENTITY at a
// time. A file that ends before its root element closes is an error.
func LoadUN(r io.Reader) ([]Entity, error) {
	const format = "un-xml"
	d := xml.NewDecoder(r)
	d.Strict = true
	var out []Entity
	seen := map[string]bool{}
	depth, closed, sawRoot := 0, false, false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line, _ := d.InputPos()
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, perr(format, se.Line, "%s (truncated file?)", se.Msg)
			}
			return nil, perr(format, line, "%v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				if t.Name.Local != "CONSOLIDATED_LIST" {
					return nil, perr(format, 1, "root element is %q, want CONSOLIDATED_LIST", truncate(t.Name.Local, 40))
				}
				if sawRoot {
					return nil, perr(format, 0, "second root element")
				}
				sawRoot = true
			}
			if depth == 2 && (t.Name.Local == "INDIVIDUAL" || t.Name.Local == "ENTITY") {
				line, _ := d.InputPos()
				var rec unRecord
				if err := d.DecodeElement(&rec, &t); err != nil {
					return nil, perr(format, line, "%s: %v (truncated file?)", t.Name.Local, err)
				}
				e, err := unEntity(&rec, t.Name.Local == "INDIVIDUAL")
				if err != nil {
					return nil, perr(format, line, "%v", err)
				}
				if seen[e.ID] {
					return nil, perr(format, line, "duplicate DATAID %s", truncate(e.ID, 40))
				}
				seen[e.ID] = true
				out = append(out, e)
				continue
			}
			depth++
		case xml.EndElement:
			depth--
			if depth == 0 {
				closed = true
			}
		}
	}
	if !sawRoot || !closed {
		return nil, perr(format, 0, "no complete CONSOLIDATED_LIST element (truncated file?)")
	}
	return out, nil
}

func unEntity(r *unRecord, person bool) (Entity, error) {
	id := strings.TrimSpace(r.DataID)
	var parts []string
	for _, p := range []string{r.First, r.Second, r.Third, r.Fourth} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if id == "" || len(parts) == 0 {
		return Entity{}, errors.New("DATAID and FIRST_NAME are required")
	}
	e := Entity{ID: id, Type: Organization, Name: strings.Join(parts, " "), Programs: []string{strings.TrimSpace(r.ListType)}, Remarks: strings.TrimSpace(r.Comments)}
	if e.Programs[0] == "" {
		e.Programs = nil
	}
	aliases, addresses := r.EAliases, r.EAddress
	if person {
		e.Type = Person
		aliases, addresses = r.IAliases, r.IAddress
	}
	if o := strings.TrimSpace(r.Original); o != "" {
		e.Aliases = addString(e.Aliases, o)
	}
	for _, a := range aliases {
		if n := strings.TrimSpace(a.Name); n != "" && !strings.EqualFold(a.Quality, "Low") {
			e.Aliases = addString(e.Aliases, n)
		}
	}
	for _, c := range append(append([]string{}, r.Nation...), addresses...) {
		e.Countries = addCountry(e.Countries, c)
	}
	for _, bd := range r.BirthDate {
		for _, s := range []string{bd.Date, bd.Year, bd.FromYear, bd.ToYear} {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			if len(s) > 10 { // "1964-10-03T00:00:00"
				s = s[:10]
			}
			d, err := ParseDate(s)
			if err != nil {
				return Entity{}, err
			}
			e.BirthDates = addDate(e.BirthDates, d)
		}
	}
	return e, nil
}
