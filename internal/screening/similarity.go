package screening

import "strings"

// JaroWinkler is the Jaro-Winkler similarity of a and b (bytes; tokens are ASCII after
// Normalize), in [0, 1], with the usual prefix scale 0.1 over at most four characters.
func JaroWinkler(a, b string) float64 {
	if a == b {
		return 1
	}
	la, lb := len(a), len(b)
	if la == 0 || lb == 0 {
		return 0
	}
	if la > lb {
		a, b, la, lb = b, a, lb, la
	}
	window := lb/2 - 1
	if window < 0 {
		window = 0
	}
	var fa, fb [64]bool
	var ma, mb []bool
	if lb <= 64 {
		ma, mb = fa[:la], fb[:lb]
	} else {
		ma, mb = make([]bool, la), make([]bool, lb)
	}
	m := 0
	for i := 0; i < la; i++ {
		lo, hi := max(0, i-window), min(lb, i+window+1)
		for j := lo; j < hi; j++ {
			if !mb[j] && a[i] == b[j] {
				ma[i], mb[j] = true, true
				m++
				break
			}
		}
	}
	if m == 0 {
		return 0
	}
	t, j := 0, 0
	for i := 0; i < la; i++ {
		if !ma[i] {
			continue
		}
		for !mb[j] {
			j++
		}
		if a[i] != b[j] {
			t++
		}
		j++
	}
	fm := float64(m)
	jaro := (fm/float64(la) + fm/float64(lb) + (fm-float64(t)/2)/fm) / 3
	p := 0
	for p < 4 && p < la && a[p] == b[p] {
		p++
	}
	return jaro + float64(p)*0.1*(1-jaro)
}

// soundClass groups letters that romanisations swap for one another (c/k/q/g/j/s/z/x,
// b/p/f/v, d/t, m/n); vowels and h, w, y are 0 (not written in the key).
var soundClass = func() [128]byte {
	var c [128]byte
	for _, g := range []struct {
		class   byte
		letters string
	}{{'1', "bfpv"}, {'2', "cgjkqsxz"}, {'3', "dt"}, {'4', "l"}, {'5', "mn"}, {'6', "r"}} {
		for i := 0; i < len(g.letters); i++ {
			c[g.letters[i]] = g.class
		}
	}
	return c
}()

// Phonetic is a coarse phonetic key of a normalised token, used to block candidates and to
// gate the string similarity: a vowel-start marker or the first consonant's class, then up
// to four consonant classes with repeats collapsed (Mohammed, Muhammad and Mohamad agree;
// so do Qasim, Kassem and Cassim).
func Phonetic(tok string) string {
	var out [6]byte
	n := 0
	var last byte
	for i := 0; i < len(tok) && n < len(out); i++ {
		ch := tok[i]
		if ch >= 128 {
			return tok // not a Latin token: the token is its own key
		}
		if ch >= '0' && ch <= '9' {
			out[n] = ch
			n++
			last = 0
			continue
		}
		c := soundClass[ch]
		if i == 0 && c == 0 {
			out[n] = '0'
			n++
			continue
		}
		if c == 0 || c == last {
			continue
		}
		out[n] = c
		n++
		last = c
	}
	return string(out[:n])
}

// Skeleton is a token's consonants without doubled letters: what an unvocalised script
// writes (محمد gives mhmd, as Mohammed does).
func Skeleton(tok string) string {
	b := make([]byte, 0, len(tok))
	for i := 0; i < len(tok); i++ {
		ch := tok[i]
		switch ch {
		case 'a', 'e', 'i', 'o', 'u':
			continue
		}
		if len(b) > 0 && b[len(b)-1] == ch {
			continue
		}
		b = append(b, ch)
	}
	return string(b)
}

// EditSimilarity is 1 - (Damerau-Levenshtein distance / longer length), in [0, 1]: stricter
// than Jaro-Winkler on short tokens, where one letter is a different name (Zhou, Zhu).
func EditSimilarity(a, b string) float64 {
	if a == b {
		return 1
	}
	la, lb := len(a), len(b)
	if la == 0 || lb == 0 {
		return 0
	}
	if la > 64 || lb > 64 {
		return JaroWinkler(a, b)
	}
	var rows [3][65]int
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= lb; j++ {
		prev[j] = j
	}
	for i := 1; i <= la; i++ {
		cur[0] = i
		for j := 1; j <= lb; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return 1 - float64(prev[lb])/float64(max(la, lb))
}

// spellingFold rewrites letter groups that romanisations use for one sound (the Dutch
// spelling of Indonesian names, French and English spellings of Arabic and Slavic ones).
var spellingFold = strings.NewReplacer("oe", "u", "ou", "u", "oo", "u", "dj", "j", "tj", "c", "ph", "f",
	"kh", "h", "ck", "k", "ee", "i", "sch", "sh", "tch", "ch", "w", "v", "y", "i")

// FoldSpelling is a token with spellingFold applied.
func FoldSpelling(tok string) string { return spellingFold.Replace(tok) }
