package identity

import (
	"strings"
	"unicode"
)

// foldGroups maps letters with diacritics and ligatures to plain Latin letters.
var foldGroups = []struct{ from, to string }{
	{"àáâãäåāăąǎȁȃạảấầẩẫậắằẳẵặ", "a"}, {"çćĉċč", "c"}, {"ďđḍ", "d"},
	{"èéêëēĕėęěȅȇẹẻẽếềểễệ", "e"}, {"ĝğġģǧ", "g"}, {"ĥħḥ", "h"},
	{"ìíîïĩīĭįıǐȉȋịỉ", "i"}, {"ĵ", "j"}, {"ķǩ", "k"}, {"ĺļľŀł", "l"},
	{"ñńņňŉṇ", "n"}, {"òóôõöøōŏőǒȍȏọỏốồổỗộớờởỡợơ", "o"}, {"ŕŗř", "r"},
	{"śŝşšșṣ", "s"}, {"ţťŧțṭ", "t"}, {"ùúûüũūŭůűųǔưụủứừửữự", "u"}, {"ŵ", "w"},
	{"ýÿŷỳỵỷỹ", "y"}, {"źżž", "z"},
}

// foldPairs are letters that become two (ICAO 9303 writes Æ as AE and ß as SS) and the
// Cyrillic letters of the ICAO 9303 transliteration table.
var foldPairs = map[rune]string{
	'æ': "ae", 'œ': "oe", 'ß': "ss", 'þ': "th", 'ð': "d", 'ĳ': "ij",
	'а': "a", 'б': "b", 'в': "v", 'г': "g", 'д': "d", 'е': "e", 'ё': "e", 'ж': "zh", 'з': "z",
	'и': "i", 'й': "i", 'к': "k", 'л': "l", 'м': "m", 'н': "n", 'о': "o", 'п': "p", 'р': "r",
	'с': "s", 'т': "t", 'у': "u", 'ф': "f", 'х': "kh", 'ц': "ts", 'ч': "ch", 'ш': "sh",
	'щ': "shch", 'ъ': "ie", 'ы': "y", 'ь': "", 'э': "e", 'ю': "iu", 'я': "ia",
	'і': "i", 'ї': "i", 'є': "ie", 'ґ': "g",
}

var foldSingle = func() map[rune]rune {
	m := map[rune]rune{}
	for _, g := range foldGroups {
		for _, r := range g.from {
			m[r] = rune(g.to[0])
		}
	}
	return m
}()

// nameTokens lower-cases a name, folds diacritics and transliterates Cyrillic, drops
// apostrophes and dots inside names (O'Brien is OBRIEN in an MRZ), and splits on anything
// else that is not a letter (spaces, hyphens, the MRZ's '<').
func nameTokens(name string) []string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r == '\'' || r == '’' || r == '`' || r == '.':
		case r >= 'a' && r <= 'z':
			b.WriteRune(r)
		case foldSingle[r] != 0:
			b.WriteRune(foldSingle[r])
		case foldPairs[r] != "" || r == 'ь':
			b.WriteString(foldPairs[r])
		case unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		case unicode.Is(unicode.Mn, r):
			// a combining accent of a decomposed letter: the base letter is kept
		default:
			b.WriteByte(' ')
		}
	}
	return strings.Fields(b.String())
}

// spellingRules bring spelling variants of one name to one key: German umlauts written
// out (ICAO), the old Indonesian spelling (Soekarno, Tjahjo, Djoko), and common Latin
// transliterations of Arabic and Slavic names (kh, ph, th).
var spellingRules = strings.NewReplacer(
	"ae", "a", "oe", "u", "ue", "u",
	"dj", "j", "tj", "c", "sj", "sy", "nj", "ny",
	"kh", "h", "ph", "f", "th", "t", "ck", "k", "q", "k",
)

// nameKey is the comparison key of one token: spelling rules applied, doubled letters
// collapsed.
func nameKey(tok string) string {
	s := spellingRules.Replace(tok)
	var b strings.Builder
	var prev rune
	for _, r := range s {
		if r != prev {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// consonants is a token key without its vowels: Muhammad, Mohammed and Mohamad share "mhmd".
func consonants(key string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("aeiouy", r) {
			return -1
		}
		return r
	}, key)
}
