package screening

import (
	"strings"
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// countryAliases are names lists use that differ from CLDR's English short names.
var countryAliases = map[string]string{
	"usa": "us", "united states of america": "us", "uk": "gb", "great britain": "gb", "england": "gb",
	"russian federation": "ru", "iran islamic republic of": "ir", "islamic republic of iran": "ir",
	"syrian arab republic": "sy", "korea north": "kp", "north korea": "kp",
	"democratic people s republic of korea": "kp", "democratic peoples republic of korea": "kp",
	"korea south": "kr", "republic of korea": "kr", "korea republic of": "kr", "burma": "mm",
	"ivory coast": "ci", "cote d ivoire": "ci", "viet nam": "vn", "lao people s democratic republic": "la",
	"laos": "la", "venezuela bolivarian republic of": "ve", "bolivia plurinational state of": "bo",
	"congo democratic republic of the": "cd", "democratic republic of the congo": "cd", "drc": "cd",
	"congo republic of the": "cg", "tanzania united republic of": "tz", "united republic of tanzania": "tz",
	"turkey": "tr", "turkiye": "tr", "moldova republic of": "md", "republic of moldova": "md",
	"palestine": "ps", "palestinian territories": "ps", "state of palestine": "ps", "west bank": "ps",
	"gaza": "ps", "macedonia": "mk", "the former yugoslav republic of macedonia": "mk",
	"czech republic": "cz", "holland": "nl", "the netherlands": "nl", "uae": "ae",
	"swaziland": "sz", "cape verde": "cv", "east timor": "tl", "vatican": "va", "holy see": "va",
	"brunei darussalam": "bn", "libyan arab jamahiriya": "ly", "micronesia federated states of": "fm",
}

var countries struct {
	once   sync.Once
	byName map[string]string
}

func countryTable() map[string]string {
	countries.once.Do(func() {
		m := make(map[string]string, 400)
		names := display.English.Regions()
		for a := 'A'; a <= 'Z'; a++ {
			for b := 'A'; b <= 'Z'; b++ {
				code := string([]rune{a, b})
				r, err := language.ParseRegion(code)
				if err != nil || !r.IsCountry() || r.String() != code || r.Canonicalize() != r {
					continue
				}
				lc := strings.ToLower(code)
				m[lc] = lc
				// Reserved codes share names with current ones (FX, UK, PZ): the first wins.
				if n := Normalize(names.Name(r)); n != "" {
					if _, taken := m[n]; !taken {
						m[n] = lc
					}
				}
			}
		}
		for k, v := range countryAliases {
			m[Normalize(k)] = v
		}
		countries.byName = m
	})
	return countries.byName
}

// CountryCode maps an ISO 3166-1 alpha-2 code or an English country name (as the OFAC, UN
// and OpenSanctions lists write them) to a lower-case alpha-2 code; ok is false otherwise.
func CountryCode(s string) (string, bool) {
	c, ok := countryTable()[Normalize(s)]
	return c, ok
}
