package screening

import (
	"cmp"
	"slices"
	"strings"
)

// Token similarity kinds, as an explanation reports them.
const (
	KindExact    = "exact"
	KindInitial  = "initial"
	KindFuzzy    = "fuzzy"
	KindPhonetic = "phonetic"
	KindSkeleton = "consonants"
	KindGlued    = "glued"
	KindSynonym  = "romanisation"
)

// Tunables of the name score. They were chosen on one fixture seed and are tested on others
// (accuracy_test.go); see the package documentation for what each feature means.
const (
	minTokenSim      = 0.72 // below this a token pair counts as unmatched
	phoneticMissGate = 0.88 // similarity factor when phonetic keys differ
	initialSim       = 0.9  // an initial against a full token with the same first letter
	initialWeight    = 0.7  // an initial identifies less than the full token
	skeletonSim      = 0.93 // same consonants, one side unvocalised
	synonymSim       = 0.95 // known romanisations of one name
	foldedSim        = 0.93 // spellings that agree once romanisation groups are folded
	coverageMix      = 0.3  // weight of the weaker side's coverage
	singleTokenScale = 0.88 // one matched token between multi-token names is weak evidence
)

// TokenMatch is one aligned pair of tokens (a glued pair shows both halves joined by "+").
type TokenMatch struct {
	Query   string  `json:"query"`
	Matched string  `json:"matched"`
	Score   float64 `json:"score"`
	Kind    string  `json:"kind"`
}

// Feature is a qualifier's contribution to the final score.
type Feature struct {
	Score  float64 `json:"score"`
	Result string  `json:"result"`
}

// Explanation says why a hit scored what it did.
type Explanation struct {
	MatchedName string       `json:"matchedName"`
	IsAlias     bool         `json:"isAlias"`
	NameScore   float64      `json:"nameScore"`
	Tokens      []TokenMatch `json:"tokens"`
	Unmatched   []string     `json:"unmatched,omitempty"`
	BirthDate   Feature      `json:"birthDate"`
	Country     Feature      `json:"country"`
	EntityType  Feature      `json:"entityType"`
	Final       float64      `json:"final"`
}

// preparedName is a name ready to compare: its tokens and their weights.
type preparedName struct {
	toks    []string
	abjad   []bool
	unknown []bool // query tokens the list never uses: likelier a typo than another name
	fold    []string
	phon    []string
	weights []float64
	singles []unit // the tokens as units
	all     []unit // the tokens, then adjacent pairs read as one token
}

// finish computes the units once, so that comparisons do not allocate them.
func (p *preparedName) finish() {
	p.all = units(p, true)
	p.singles = p.all[:len(p.toks)]
}

type unit struct {
	lo, hi int // token span [lo, hi)
	text   string
	phon   string
	abjad  bool
	typo   bool // an unknown token: compared leniently
	fold   string
}

func units(p *preparedName, pairs bool) []unit {
	u := make([]unit, 0, 2*len(p.toks))
	for i, t := range p.toks {
		u = append(u, unit{i, i + 1, t, p.phon[i], p.abjad[i], p.unknown != nil && p.unknown[i], p.fold[i]})
	}
	if pairs {
		for i := 0; i+1 < len(p.toks); i++ {
			t := p.toks[i] + p.toks[i+1]
			u = append(u, unit{i, i + 2, t, Phonetic(t), p.abjad[i] || p.abjad[i+1], false, p.fold[i] + p.fold[i+1]})
		}
	}
	return u
}

// tokenSim compares two tokens and names the feature that decided.
func tokenSim(a, b unit) (float64, string) {
	if a.text == b.text {
		return 1, KindExact
	}
	if len(a.text) == 1 || len(b.text) == 1 {
		if a.hi-a.lo == 1 && b.hi-b.lo == 1 && a.text[0] == b.text[0] {
			return initialSim, KindInitial
		}
		return 0, ""
	}
	if a.hi-a.lo == 1 && b.hi-b.lo == 1 && synonyms(a.text, b.text) {
		return synonymSim, KindSynonym
	}
	// Jaro-Winkler forgives one letter in a short token too easily (Zhou, Zhu): the shorter
	// the tokens, the more the edit similarity counts.
	// A query token the list never uses is more likely a typo than another name: for it
	// Jaro-Winkler alone decides.
	mix := max(0.3, min(0.8, float64(max(len(a.text), len(b.text))-3)/6))
	if a.typo || b.typo {
		mix = 1
	}
	floor, floorKind := 0.0, ""
	if a.fold == b.fold && (a.fold != a.text || b.fold != b.text) {
		floor, floorKind = foldedSim, KindSynonym
	} else if a.abjad != b.abjad && len(a.text) > 2 && len(b.text) > 2 && Skeleton(a.text) == Skeleton(b.text) {
		floor, floorKind = skeletonSim, KindSkeleton
	}
	jw := JaroWinkler(a.text, b.text)
	if jw < minTokenSim-0.1 && floor == 0 {
		return jw, "" // no measure can lift it to a match: the edit distance is not worth its cost
	}
	s := mix*jw + (1-mix)*EditSimilarity(a.text, b.text)
	kind := KindFuzzy
	if a.phon == b.phon {
		kind = KindPhonetic
	} else {
		s *= phoneticMissGate
	}
	if floor > s {
		s, kind = floor, floorKind
	}
	if (a.hi-a.lo > 1 || b.hi-b.lo > 1) && kind != "" {
		kind = KindGlued
	}
	return s, kind
}

type pairing struct {
	qi, ci int
	sim    float64
	kind   string
}

// align pairs query units with candidate units greedily by similarity, each token used once.
func align(qu, cu []unit, buf *[]pairing) []pairing {
	cands := (*buf)[:0]
	for i, a := range qu {
		for j, b := range cu {
			if a.hi-a.lo > 1 && b.hi-b.lo > 1 {
				continue
			}
			if s, k := tokenSim(a, b); s >= minTokenSim {
				cands = append(cands, pairing{i, j, s, k})
			}
		}
	}
	span := func(p pairing) int { return qu[p.qi].hi - qu[p.qi].lo + cu[p.ci].hi - cu[p.ci].lo }
	slices.SortStableFunc(cands, func(x, y pairing) int {
		if x.sim != y.sim {
			return cmp.Compare(y.sim, x.sim)
		}
		// Prefer the pairing that covers more tokens ("xiao ming" as a whole, not "xiao").
		return span(y) - span(x)
	})
	*buf = cands
	var usedQ, usedC [64]bool
	out := cands[len(cands):]
	for _, p := range cands {
		a, b := qu[p.qi], cu[p.ci]
		if a.hi > 64 || b.hi > 64 || spanUsed(usedQ[:], a) || spanUsed(usedC[:], b) {
			continue
		}
		for k := a.lo; k < a.hi; k++ {
			usedQ[k] = true
		}
		for k := b.lo; k < b.hi; k++ {
			usedC[k] = true
		}
		out = append(out, p)
	}
	return out
}

func spanUsed(used []bool, u unit) bool {
	for k := u.lo; k < u.hi; k++ {
		if used[k] {
			return true
		}
	}
	return false
}

// compareNames scores a query name against a candidate name in [0, 1]. Coverage is measured
// on both sides with the candidate's token weights (rarer tokens say more); a missing or an
// extra token costs its weight on one side only, so missing middle names cost little.
func compareNames(q, c *preparedName, explain bool) (float64, []TokenMatch, []string) {
	var buf []pairing
	return compareNamesBuf(q, c, explain, &buf)
}

// compareNamesBuf is compareNames with a reusable buffer for the alignment.
func compareNamesBuf(q, c *preparedName, explain bool, buf *[]pairing) (float64, []TokenMatch, []string) {
	nq, nc := len(q.toks), len(c.toks)
	if nq == 0 || nc == 0 || nq > 32 || nc > 32 {
		return 0, nil, nil
	}
	qu, cu := q.singles, c.singles
	pairs := align(qu, cu, buf)
	score := coverage(q, c, qu, cu, pairs)
	if len(pairs) < max(nq, nc) && (nq > 1 || nc > 1) {
		// Some token is left over: try reading adjacent tokens as one (glued or split names).
		var buf2 []pairing
		pairs2 := align(q.all, c.all, &buf2)
		if s2 := coverage(q, c, q.all, c.all, pairs2); s2 > score {
			score, qu, cu, pairs = s2, q.all, c.all, pairs2
		}
	}
	var unmatched []string
	if explain {
		var used [32]bool
		for _, p := range pairs {
			for k := qu[p.qi].lo; k < qu[p.qi].hi; k++ {
				used[k] = true
			}
		}
		for k := 0; k < nq; k++ {
			if !used[k] {
				unmatched = append(unmatched, q.toks[k])
			}
		}
	}
	var tm []TokenMatch
	if explain {
		for _, p := range pairs {
			a, b := qu[p.qi], cu[p.ci]
			tm = append(tm, TokenMatch{Query: strings.Join(q.toks[a.lo:a.hi], "+"), Matched: strings.Join(c.toks[b.lo:b.hi], "+"), Score: round3(p.sim), Kind: p.kind})
		}
	}
	return score, tm, unmatched
}

// coverage turns an alignment into a name score.
func coverage(q, c *preparedName, qu, cu []unit, pairs []pairing) float64 {
	nq, nc := len(q.toks), len(c.toks)
	var got, alignedW, cAll, qExtra float64
	var matchedQ, matchedC [32]bool
	matchedTokens := 0
	for _, p := range pairs {
		a, b := qu[p.qi], cu[p.ci]
		w := 0.0
		for k := b.lo; k < b.hi; k++ {
			w += c.weights[k]
			matchedC[k] = true
		}
		for k := a.lo; k < a.hi; k++ {
			matchedQ[k] = true
		}
		if p.kind == KindInitial {
			w *= initialWeight
		}
		got += w * p.sim
		alignedW += w
		matchedTokens += max(a.hi-a.lo, b.hi-b.lo)
	}
	if got == 0 {
		return 0
	}
	for k := 0; k < nc; k++ {
		if !matchedC[k] {
			cAll += c.weights[k]
		}
	}
	for k := 0; k < nq; k++ {
		if !matchedQ[k] {
			qExtra += q.weights[k]
		}
	}
	qcov := got / (alignedW + qExtra)
	ccov := got / (alignedW + cAll)
	score := max(qcov, ccov)*(1-coverageMix) + min(qcov, ccov)*coverageMix
	if matchedTokens == 1 && max(nq, nc) > 1 {
		score *= singleTokenScale
	}
	return score
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }

// Birth-date and country qualifier results.
const (
	ResultExact    = "exact"
	ResultYear     = "year"
	ResultNear     = "near"
	ResultMismatch = "mismatch"
	ResultMatch    = "match"
	ResultUnknown  = "unknown"
)

// Qualifier weights: agreement adds a little, disagreement on a birth date takes a lot
// (the same name with another birth date is another person).
const (
	dobExact    = 0.06
	dobYear     = 0.03
	dobNear     = -0.08
	dobMismatch = -0.35
	ctyMatch    = 0.02
	ctyMismatch = -0.06
	typeMiss    = -0.35
)

func birthDateFeature(q *Date, dates []Date) Feature {
	if q == nil || q.Year == 0 || len(dates) == 0 {
		return Feature{0, ResultUnknown}
	}
	best := Feature{dobMismatch, ResultMismatch}
	for _, d := range dates {
		var f Feature
		switch {
		case d.Year == q.Year && d.Month != 0 && q.Month != 0 && d.Day != 0 && q.Day != 0:
			if d.Month == q.Month && d.Day == q.Day {
				f = Feature{dobExact, ResultExact}
			} else {
				f = Feature{dobNear, ResultNear}
			}
		case d.Year == q.Year:
			if d.Month != 0 && q.Month != 0 && d.Month != q.Month {
				f = Feature{dobNear, ResultNear}
			} else {
				f = Feature{dobYear, ResultYear}
			}
		case d.Year-q.Year == 1 || q.Year-d.Year == 1:
			f = Feature{dobNear, ResultNear}
		default:
			f = Feature{dobMismatch, ResultMismatch}
		}
		if f.Score > best.Score {
			best = f
		}
	}
	return best
}

func countryFeature(q string, cs []string) Feature {
	if q == "" || len(cs) == 0 {
		return Feature{0, ResultUnknown}
	}
	for _, c := range cs {
		if c == q {
			return Feature{ctyMatch, ResultMatch}
		}
	}
	return Feature{ctyMismatch, ResultMismatch}
}

func typeFeature(q, e EntityType) Feature {
	if q == Unknown || e == Unknown {
		return Feature{0, ResultUnknown}
	}
	if q == e {
		return Feature{0, ResultMatch}
	}
	return Feature{typeMiss, ResultMismatch}
}

func clamp01(f float64) float64 { return max(0, min(1, f)) }
