package screening

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MaxNameRunes bounds the work spent on one name; longer input is cut (the API rejects it first).
const MaxNameRunes = 512

// Normalize returns s in the engine's canonical form: NFKC, lower case, Cyrillic, Greek,
// Arabic and Persian transliterated to Latin, diacritics removed, apostrophes dropped (so
// O'Brien and OBrien agree), every other punctuation, symbol or control character a single
// space. Scripts without a table (Han, Hebrew, ...) are kept lower-cased.
func Normalize(s string) string {
	toks, _ := tokenize(s)
	return strings.Join(toks, " ")
}

// tokenize returns the normalised tokens of s and, for each, whether it was written in an
// abjad (Arabic or Persian script), where short vowels are usually not written.
func tokenize(s string) ([]string, []bool) {
	runes := baseRunes(s)
	persian := slices.ContainsFunc(runes, func(r rune) bool { return strings.ContainsRune(persianLetters, r) })
	var b strings.Builder
	b.Grow(len(runes) + 8)
	space := true // at a word start
	var toks []string
	var abjad []bool
	inAbjad := false
	flush := func() {
		if b.Len() > 0 {
			toks = append(toks, b.String())
			abjad = append(abjad, inAbjad)
			b.Reset()
		}
		inAbjad = false
	}
	put := func(t string) {
		if t == " " {
			flush()
			space = true
			return
		}
		if t != "" {
			b.WriteString(t)
			space = false
		}
	}
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		if i+1 < len(runes) {
			if t, ok := greekPairs[string(runes[i:i+2])]; ok {
				put(t)
				i++
				continue
			}
			// The Arabic article is written joined; split it so "الحسن" meets "Al-Hassan".
			if space && r == 'ا' && runes[i+1] == 'ل' && i+2 < len(runes) && isArabicLetter(runes[i+2]) && !isAllah(runes[i:]) {
				put("al")
				put(" ")
				i++
				continue
			}
		}
		if t, ok := cyrillic[r]; ok {
			put(t)
		} else if t, ok := greek[r]; ok {
			put(t)
		} else if g, ok := arabicGlide[r]; ok {
			inAbjad = true
			if space {
				put(g[0])
			} else {
				put(g[1])
			}
		} else if t, ok := arabic[r]; ok {
			inAbjad = true
			if pv, ok := persianValues[r]; ok && persian {
				t = pv
			}
			put(t)
		} else if t, ok := latinFold[r]; ok {
			put(t)
		} else if unicode.Is(unicode.Cf, r) {
			continue // zero-width joiners and marks of direction join, they do not separate
		} else if r < 128 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			put(string(r))
		} else if r >= 128 && unicode.IsLetter(r) || unicode.IsDigit(r) {
			put(string(r))
		} else {
			put(" ")
		}
	}
	flush()
	return toks, abjad
}

// isAllah reports whether the word at the start of rs is الله, whose article stays joined.
func isAllah(rs []rune) bool {
	return len(rs) >= 4 && string(rs[:4]) == "الله" && (len(rs) == 4 || !isArabicLetter(rs[4]))
}

func isArabicLetter(r rune) bool { return r >= 0x0620 && r <= 0x064A || r >= 0x0671 && r <= 0x06D3 }

// baseRunes applies NFKC and lower case, then takes every character apart (NFD) and drops
// its combining marks, except Cyrillic letters whose marks are part of the letter (й, ё)
// and the Arabic vowel marks, which the tables read.
func baseRunes(s string) []rune {
	s = norm.NFKC.String(strings.ToValidUTF8(s, " "))
	out := make([]rune, 0, len(s))
	n := 0
	for _, r := range s {
		if n++; n > MaxNameRunes {
			break
		}
		r = unicode.ToLower(r)
		if _, ok := cyrillic[r]; ok || r < 128 {
			out = append(out, r)
			continue
		}
		if _, ok := arabic[r]; ok {
			out = append(out, r)
			continue
		}
		for _, d := range norm.NFD.String(string(r)) {
			if unicode.Is(unicode.Mn, d) {
				continue
			}
			out = append(out, d)
		}
	}
	return out
}
