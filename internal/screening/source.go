package screening

import (
	"fmt"
	"strings"
)

// Source is a configured list source (config screening.sources): a name, a format and where
// its file is, an http(s) URL or a path; OFAC's alt.csv and add.csv locations follow sdn.csv.
type Source struct {
	Name     string
	Format   Format
	Location string
	Extra    map[string]string // "alt", "add" for FormatOFAC
}

// ParseSource reads "name|format|location[|alt location|add location]".
func ParseSource(s string) (Source, error) {
	parts := strings.Split(strings.TrimSpace(s), "|")
	if len(parts) < 3 || parts[0] == "" || parts[2] == "" {
		return Source{}, fmt.Errorf("source %q: want name|format|location", truncate(s, 80))
	}
	f, ok := ParseFormat(parts[1])
	if !ok {
		return Source{}, fmt.Errorf("source %s: unknown format %q (ofac, un, opensanctions or csv)", parts[0], parts[1])
	}
	if len(parts[0]) > 200 {
		return Source{}, fmt.Errorf("source name longer than 200 characters")
	}
	src := Source{Name: parts[0], Format: f, Location: parts[2], Extra: map[string]string{}}
	switch {
	case f == FormatOFAC && len(parts) <= 5:
		for i, k := range []string{"alt", "add"} {
			if len(parts) > 3+i && parts[3+i] != "" {
				src.Extra[k] = parts[3+i]
			}
		}
	case len(parts) > 3:
		return Source{}, fmt.Errorf("source %s: only ofac takes more than one location", parts[0])
	}
	return src, nil
}
