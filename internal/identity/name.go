package identity

import (
	"slices"
	"sort"
)

// NameMatcher scores how likely two written names are the same person's name, from 0
// (unrelated) to 1 (the same). The screening product's matcher can stand in for the default.
type NameMatcher interface {
	Match(claimed, printed string) float64
}

// DefaultNameMatcher compares names token by token in any order: diacritics folded,
// Cyrillic transliterated, spelling variants keyed alike (see spellingRules), tokens
// compared by Jaro-Winkler or by their consonants, two adjacent tokens allowed to stand for
// one (Abdul Rahman, Abdulrahman). The score is the Dice coefficient of the matched
// tokens, so a missing middle name lowers it (Siti Rahayu, Siti Nur Rahayu: 0.8).
type DefaultNameMatcher struct{}

// minTokenSimilarity is the similarity below which two tokens count as different names.
const minTokenSimilarity = 0.8

// Match implements NameMatcher.
func (DefaultNameMatcher) Match(claimed, printed string) float64 {
	a, b := keys(nameTokens(claimed)), keys(nameTokens(printed))
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	best := alignScore(a, b)
	// One merge of adjacent tokens on either side (a name written as one word or two),
	// counted only when the joined word is exactly a word of the other side.
	for _, va := range merges(a, b) {
		best = max(best, alignScore(va, b))
	}
	for _, vb := range merges(b, a) {
		best = max(best, alignScore(a, vb))
	}
	return round3(best)
}

func keys(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = nameKey(t)
	}
	return out
}

// merges lists the token lists made by joining one adjacent pair of t into a word of other.
func merges(t, other []string) [][]string {
	var out [][]string
	for i := 0; i+1 < len(t); i++ {
		joined := nameKey(t[i] + t[i+1])
		if !slices.Contains(other, joined) {
			continue
		}
		out = append(out, append(append(append([]string{}, t[:i]...), joined), t[i+2:]...))
	}
	return out
}

// alignScore pairs tokens greedily by similarity (each token used once) and returns the
// Dice coefficient: twice the similarity of the matched pairs over the token count.
func alignScore(a, b []string) float64 {
	type pair struct {
		i, j int
		s    float64
	}
	var pairs []pair
	for i := range a {
		for j := range b {
			if s := tokenSimilarity(a[i], b[j]); s >= minTokenSimilarity {
				pairs = append(pairs, pair{i, j, s})
			}
		}
	}
	sort.SliceStable(pairs, func(x, y int) bool { return pairs[x].s > pairs[y].s })
	usedA, usedB := make([]bool, len(a)), make([]bool, len(b))
	sum := 0.0
	for _, p := range pairs {
		if usedA[p.i] || usedB[p.j] {
			continue
		}
		usedA[p.i], usedB[p.j] = true, true
		sum += p.s
	}
	return 2 * sum / float64(len(a)+len(b))
}

// tokenSimilarity compares two token keys: equal is 1; the same consonants in the same
// order with the same first letter (vowel variants of a transliteration) is 0.92;
// otherwise Jaro-Winkler, discounted by a tenth when the first letters differ (one
// person's name seldom changes its first letter; Jurgen and Bjoern are two names).
func tokenSimilarity(a, b string) float64 {
	if a == b {
		return 1
	}
	if ca, cb := consonants(a), consonants(b); len(ca) >= 3 && ca == cb && a[0] == b[0] {
		return 0.92
	}
	s := jaroWinkler(a, b)
	if a[0] != b[0] {
		s *= 0.9
	}
	return s
}

// jaroWinkler is the Jaro-Winkler similarity of two strings (prefix scale 0.1, up to 4).
func jaroWinkler(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 || len(rb) == 0 {
		return 0
	}
	window := max(len(ra), len(rb))/2 - 1
	window = max(window, 0)
	ma, mb := make([]bool, len(ra)), make([]bool, len(rb))
	matches := 0
	for i := range ra {
		lo, hi := max(0, i-window), min(len(rb)-1, i+window)
		for j := lo; j <= hi; j++ {
			if !mb[j] && ra[i] == rb[j] {
				ma[i], mb[j] = true, true
				matches++
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	transpositions, k := 0, 0
	for i := range ra {
		if !ma[i] {
			continue
		}
		for !mb[k] {
			k++
		}
		if ra[i] != rb[k] {
			transpositions++
		}
		k++
	}
	m := float64(matches)
	jaro := (m/float64(len(ra)) + m/float64(len(rb)) + (m-float64(transpositions)/2)/m) / 3
	prefix := 0
	for i := 0; i < min(4, len(ra), len(rb)) && ra[i] == rb[i]; i++ {
		prefix++
	}
	return jaro + float64(prefix)*0.1*(1-jaro)
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }
