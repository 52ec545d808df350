package screening

import "strings"

// legalForms are organisation legal forms in normalised form: single words, then phrases
// where the form is written out. They say nothing about which organisation it is, so they
// are not compared.
var legalForms = buildPhrases(`
llc ltd limited inc incorporated corp corporation co company plc llp lp lllp pllc
gmbh ag kg ohg ug ev mbh kgaa se
sa sas sasu sarl srl spa sapa snc sl slu sad
bv nv vof cv
oy oyj ab as asa aps hf
pt tbk persero ud sdn bhd berhad pte pty pvt
ooo oao zao pao ao tov pat zat chp fgup gup mup nko
jsc ojsc cjsc pjsc
kft zrt nyrt bt sro doo dd ad ood eood zoo
fze fzco fzc fzllc dmcc wll est sti
`, `
limited liability company
limited company
public limited company
joint stock company
closed joint stock company
open joint stock company
public joint stock company
obshchestvo s ogranichennoy otvetstvennostyu
obshchestvo s ogranichennoi otvetstvennostiu
aktsionernoe obshchestvo
otkrytoe aktsionernoe obshchestvo
zakrytoe aktsionernoe obshchestvo
publichnoe aktsionernoe obshchestvo
tovarystvo z obmezhenoyu vidpovidalnistyu
gesellschaft mit beschrankter haftung
sociedad anonima
sociedad limitada
societe anonyme
societe a responsabilite limitee
societa per azioni
besloten vennootschap
naamloze vennootschap
perseroan terbatas
sendirian berhad
private limited
proprietary limited
limited liability partnership
anonim sirketi
limited sirketi
aktiengesellschaft
`)

// orgStopWords carry no identity in an organisation's name.
var orgStopWords = set("the", "and", "of", "for", "und", "et", "y", "e", "der", "die", "das", "le", "la", "les")

// particles are Arabic name particles and honorifics, written or left out freely. European
// particles (de, van, von) stay tokens: rare enough in a list to weigh little, and the
// glued reading of adjacent tokens matches DeVries with de Vries.
var particles = set("al", "el", "ul", "bin", "ibn", "bint", "ben", "bte", "binti", "y",
	"mr", "mrs", "ms", "dr", "sheikh", "shaikh", "haji", "hajji", "sayyid", "mullah", "mulla", "sir")

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// phraseSet is a set of word sequences, keyed by their first word.
type phraseSet map[string][][]string

func buildPhrases(words, phrases string) phraseSet {
	p := phraseSet{}
	for _, w := range strings.Fields(words) {
		p[w] = append(p[w], []string{w})
	}
	for _, line := range strings.Split(phrases, "\n") {
		if ws := strings.Fields(line); len(ws) > 0 {
			p[ws[0]] = append(p[ws[0]], ws)
		}
	}
	return p
}

// match returns the length of the longest phrase starting at toks[i], or 0.
func (p phraseSet) match(toks []string, i int) int {
	best := 0
	for _, ph := range p[toks[i]] {
		if len(ph) <= best || i+len(ph) > len(toks) {
			continue
		}
		ok := true
		for k, w := range ph {
			if toks[i+k] != w {
				ok = false
				break
			}
		}
		if ok {
			best = len(ph)
		}
	}
	return best
}

// joinInitials glues a run of one-letter tokens when the run spells a legal form
// ("L.L.C." → "llc"); other runs stay initials ("J. R. Smith").
func joinInitials(toks []string, abjad []bool) ([]string, []bool) {
	out := toks[:0:0]
	outAbjad := abjad[:0:0]
	for i := 0; i < len(toks); {
		j := i
		for j < len(toks) && len(toks[j]) == 1 {
			j++
		}
		if j-i >= 2 {
			glued := strings.Join(toks[i:j], "")
			if legalForms.match([]string{glued}, 0) == 1 {
				out = append(out, glued)
				outAbjad = append(outAbjad, false)
				i = j
				continue
			}
		}
		if j == i {
			j = i + 1
		}
		out = append(out, toks[i:j]...)
		outAbjad = append(outAbjad, abjad[i:j]...)
		i = j
	}
	return out, outAbjad
}

// NameTokens returns the tokens of a name that are compared: normalised, without particles
// (persons) or legal forms and stop words (organisations and unknown types). If removing
// them would leave nothing, the normalised tokens are returned.
func NameTokens(name string, t EntityType) []string {
	toks, _ := nameTokens(name, t)
	return toks
}

// nameTokens is NameTokens with each token's abjad flag (see tokenize).
func nameTokens(name string, t EntityType) ([]string, []bool) {
	raw, rawAbjad := tokenize(name)
	toks, abjad := joinInitials(raw, rawAbjad)
	out := make([]string, 0, len(toks))
	outAbjad := make([]bool, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		w := toks[i]
		if t != Person {
			if n := legalForms.match(toks, i); n > 0 {
				i += n - 1
				continue
			}
			if orgStopWords[w] {
				continue
			}
		}
		if t != Organization && particles[w] && i+1 < len(toks) {
			continue
		}
		out = append(out, w)
		outAbjad = append(outAbjad, abjad[i])
	}
	if len(out) == 0 {
		return toks, abjad
	}
	return out, outAbjad
}
