package identity

import (
	"slices"
	"sort"
	"strings"

	"github.com/svcplatform/svc/internal/screening"
)

// NameMatcher scores how likely two written names are the same person's name, from 0
// (unrelated) to 1 (the same). The screening product's matcher can stand in for the default.
type NameMatcher interface {
	Match(claimed, printed string) float64
}

// DefaultNameMatcher compares names token by token in any order. The tokens and their
// similarity measures are the screening product's (internal/screening: normalisation,
// diacritics, transliteration of Cyrillic, Greek and Arabic, romanisation folding,
// Jaro-Winkler, consonant skeletons), so both products read a name the same way; what is
// this product's own is the comparison of two names of one person: spelling variants of
// identity documents keyed alike (see icaoSpelling), two adjacent tokens allowed to stand
// for one (Abdul Rahman, Abdulrahman), and the score, the Dice coefficient of the matched
// tokens, so a missing middle name lowers it (Siti Rahayu, Siti Nur Rahayu: 0.8). The
// screening matcher's score is not used as is: it weighs tokens by their rarity in a list,
// which two names of one person do not have.
type DefaultNameMatcher struct{}

// minTokenSimilarity is the similarity below which two tokens count as different names.
const minTokenSimilarity = 0.8

// Match implements NameMatcher.
func (DefaultNameMatcher) Match(claimed, printed string) float64 {
	a, b := keys(screening.NameTokens(claimed, screening.Person)), keys(screening.NameTokens(printed, screening.Person))
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
	if ca, cb := screening.Skeleton(a), screening.Skeleton(b); len(ca) >= 3 && ca == cb && a[0] == b[0] {
		return 0.92
	}
	s := screening.JaroWinkler(a, b)
	if a[0] != b[0] {
		s *= 0.9
	}
	return s
}

// icaoSpelling brings the spellings of identity documents to one key before the screening
// product's romanisation folding: German umlauts written out (ICAO 9303 writes Ü as UE),
// the old Indonesian spelling (Sjahrir, Njoman) and th, q for t, k.
var icaoSpelling = strings.NewReplacer("ae", "a", "ue", "u", "sj", "sy", "nj", "ny", "th", "t", "q", "k")

// nameKey is the comparison key of one normalised token: spelling folded, doubled letters
// collapsed.
func nameKey(tok string) string {
	s := screening.FoldSpelling(icaoSpelling.Replace(tok))
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

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }
