package screening

import (
	"fmt"
	"io"
	"strings"
)

// header maps a CSV header to column positions, by name without case, "_" or "-".
type header map[string]int

func readHeader(rows *csvRows, required ...string) (header, error) {
	rec, line, err := rows.next()
	if err == io.EOF {
		return nil, perr(rows.format, 1, "empty file: no header")
	}
	if err != nil {
		return nil, err
	}
	h := header{}
	for i, c := range rec {
		h[headerKey(c)] = i
	}
	for _, r := range required {
		if _, ok := h[headerKey(r)]; !ok {
			return nil, perr(rows.format, line, "missing column %q", r)
		}
	}
	rows.want = len(rec)
	return h, nil
}

func headerKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(s, "\ufeff")))
	return strings.NewReplacer("_", "", "-", "", " ", "").Replace(s)
}

// get returns the first present column among names, trimmed.
func (h header) get(rec []string, names ...string) string {
	for _, n := range names {
		if i, ok := h[headerKey(n)]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
	}
	return ""
}

// openSanctionsTypes maps FollowTheMoney schemata to entity types.
var openSanctionsTypes = map[string]EntityType{
	"person": Person, "organization": Organization, "company": Organization, "legalentity": Organization,
	"publicbody": Organization, "vessel": Vessel, "airplane": Aircraft,
}

// LoadOpenSanctions reads OpenSanctions' targets.simple.csv (id, schema, name, aliases,
// birth_date, countries, ...; multiple values separated by ";").
func LoadOpenSanctions(r io.Reader) ([]Entity, error) {
	const format = "opensanctions-csv"
	rows := newCSVRows(format, r, 0)
	h, err := readHeader(rows, "id", "schema", "name")
	if err != nil {
		return nil, err
	}
	return readEntities(rows, func(rec []string, line int) (Entity, error) {
		e := Entity{ID: h.get(rec, "id"), Name: h.get(rec, "name"), Type: openSanctionsTypes[strings.ToLower(h.get(rec, "schema"))]}
		e.Aliases = splitMulti(h.get(rec, "aliases"))
		for _, s := range splitMulti(h.get(rec, "birth_date")) {
			d, err := ParseDate(s)
			if err != nil {
				return e, fmt.Errorf("birth_date: %v", err)
			}
			e.BirthDates = addDate(e.BirthDates, d)
		}
		for _, c := range splitMulti(h.get(rec, "countries")) {
			e.Countries = addCountry(e.Countries, c)
		}
		e.Programs = splitMulti(h.get(rec, "dataset"))
		return e, nil
	})
}

// OrgCSVColumns is the header of an organisation's own list file; id and name are required.
var OrgCSVColumns = []string{"id", "type", "name", "aliases", "birthDates", "countries", "programs", "remarks"}

// LoadOrgCSV reads an organisation's own list: a header naming at least id and name, then
// one entity per row; aliases, birthDates and countries take several values separated by ";".
func LoadOrgCSV(r io.Reader) ([]Entity, error) {
	const format = "org-csv"
	rows := newCSVRows(format, r, 0)
	h, err := readHeader(rows, "id", "name")
	if err != nil {
		return nil, err
	}
	return readEntities(rows, func(rec []string, line int) (Entity, error) {
		t, ok := ParseEntityType(h.get(rec, "type"))
		if !ok {
			return Entity{}, fmt.Errorf("type %q is not person, organisation, vessel or aircraft", truncate(h.get(rec, "type"), 40))
		}
		e := Entity{ID: h.get(rec, "id"), Type: t, Name: h.get(rec, "name"), Remarks: h.get(rec, "remarks")}
		e.Aliases = splitMulti(h.get(rec, "aliases"))
		e.Programs = splitMulti(h.get(rec, "programs"))
		for _, s := range splitMulti(h.get(rec, "birthDates", "birthDate", "birth_date")) {
			d, err := ParseDate(s)
			if err != nil {
				return e, fmt.Errorf("birthDates: %v", err)
			}
			e.BirthDates = addDate(e.BirthDates, d)
		}
		for _, c := range splitMulti(h.get(rec, "countries", "country")) {
			cc, ok := CountryCode(c)
			if !ok {
				return e, fmt.Errorf("countries: unknown country %q", truncate(c, 40))
			}
			e.Countries = addString(e.Countries, cc)
		}
		return e, nil
	})
}

func readEntities(rows *csvRows, row func([]string, int) (Entity, error)) ([]Entity, error) {
	var out []Entity
	seen := map[string]bool{}
	for {
		rec, line, err := rows.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		e, err := row(rec, line)
		if err != nil {
			return nil, perr(rows.format, line, "%v", err)
		}
		if e.ID == "" || strings.TrimSpace(e.Name) == "" {
			return nil, perr(rows.format, line, "id and name are required")
		}
		if seen[e.ID] {
			return nil, perr(rows.format, line, "duplicate id %q", truncate(e.ID, 40))
		}
		seen[e.ID] = true
		out = append(out, e)
	}
}
