package statements

import (
	"bytes"
	"regexp"
	"strconv"
	"time"
)

// PDFMeta is what a PDF says about its own making, read without any external program.
type PDFMeta struct {
	Producer string `json:"producer,omitempty"`
	Creator  string `json:"creator,omitempty"`
	// FirstProducer is the Producer of the earliest revision, when an update changed it.
	FirstProducer string     `json:"firstProducer,omitempty"`
	CreationDate  *time.Time `json:"creationDate,omitempty"`
	ModDate       *time.Time `json:"modDate,omitempty"`
	// Revisions counts the saves: 1 for a file written once, more for incremental updates.
	Revisions  int  `json:"revisions"`
	Encrypted  bool `json:"encrypted"`
	Linearized bool `json:"linearized"`
}

var infoKeyRe = map[string]*regexp.Regexp{
	"Producer":     regexp.MustCompile(`/Producer\s*([(<])`),
	"Creator":      regexp.MustCompile(`/Creator\s*([(<])`),
	"CreationDate": regexp.MustCompile(`/CreationDate\s*([(<])`),
	"ModDate":      regexp.MustCompile(`/ModDate\s*([(<])`),
}

// ReadPDFMeta reads the document information (the last revision's values win), counts
// the revisions (cross-reference sections) and notes encryption. Encrypted files keep
// their information strings encrypted, so only Revisions and Encrypted are then set.
func ReadPDFMeta(data []byte) *PDFMeta {
	m := &PDFMeta{}
	m.Encrypted = bytes.Contains(data, []byte("/Encrypt"))
	m.Linearized = bytes.Contains(data[:min(len(data), 2048)], []byte("/Linearized"))
	m.Revisions = bytes.Count(data, []byte("startxref"))
	if m.Linearized && m.Revisions > 1 {
		m.Revisions-- // a linearized file has a first-page cross-reference of its own
	}
	if m.Encrypted {
		return m
	}
	all := func(key string) []string {
		var out []string
		for _, loc := range infoKeyRe[key].FindAllSubmatchIndex(data, 64) {
			out = append(out, pdfString(data[loc[2]:min(len(data), loc[2]+4096)]))
		}
		return out
	}
	last := func(v []string) string {
		if len(v) == 0 {
			return ""
		}
		return v[len(v)-1]
	}
	prods := all("Producer")
	m.Producer, m.Creator = last(prods), last(all("Creator"))
	if len(prods) > 1 && prods[0] != m.Producer {
		m.FirstProducer = prods[0]
	}
	if cds := all("CreationDate"); len(cds) > 0 {
		m.CreationDate = parsePDFDate(cds[0])
	}
	m.ModDate = parsePDFDate(last(all("ModDate")))
	return m
}

// parsePDFDate reads "D:YYYYMMDDHHmmSS" with an optional zone ("Z", "+01'00'").
func parsePDFDate(s string) *time.Time {
	if len(s) >= 2 && s[:2] == "D:" {
		s = s[2:]
	}
	if len(s) < 8 {
		return nil
	}
	digits := s
	zone := ""
	for i, r := range s {
		if r < '0' || r > '9' {
			digits, zone = s[:i], s[i:]
			break
		}
	}
	for len(digits) < 14 {
		digits += "0"
	}
	if len(digits) > 14 {
		digits = digits[:14]
	}
	t, err := time.Parse("20060102150405", digits)
	if err != nil {
		return nil
	}
	if len(zone) >= 3 && (zone[0] == '+' || zone[0] == '-') {
		h, _ := strconv.Atoi(zone[1:3])
		mm := 0
		if len(zone) >= 6 {
			mm, _ = strconv.Atoi(zone[4:6])
		}
		off := time.Duration(h)*time.Hour + time.Duration(mm)*time.Minute
		if zone[0] == '+' {
			t = t.Add(-off)
		} else {
			t = t.Add(off)
		}
	}
	t = t.UTC()
	return &t
}
