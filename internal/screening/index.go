package screening

import (
	"math"
	"slices"
	"sort"
	"sync"
)

// DefaultThreshold is the score from which a candidate is a hit when a request names none.
const DefaultThreshold = 0.80

// Candidates scored per query name: the best blocked names by shared-key weight.
const candidatesPerName = 150

// Query is what a screening asks about one party.
type Query struct {
	Name      string
	Aliases   []string
	Type      EntityType
	BirthDate *Date
	Country   string // ISO 3166-1 alpha-2, any case, or a country name
	Threshold float64
	Limit     int // hits returned at most; 0 means 20
	// Only, when set, limits the hits to these entity ids (a rescreen against a list's delta).
	Only map[string]bool
}

// Hit is a list entity that scored at or above the threshold.
type Hit struct {
	ListID      string      `json:"listId"`
	EntityID    string      `json:"entityId"`
	Name        string      `json:"name"`
	MatchedName string      `json:"matchedName"`
	Score       float64     `json:"score"`
	Explanation Explanation `json:"explanation"`
	Entity      *Entity     `json:"-"`
}

type indexedName struct {
	entity int32
	alias  bool
	text   string
	prep   preparedName
}

// Index is an immutable, concurrency-safe search structure over one list version.
type Index struct {
	listID   string
	entities []Entity
	names    []indexedName
	postings map[string][]int32
	idf      map[string]float64
	defIDF   float64
	scratch  sync.Pool
}

// blockKeys are the keys under which a token is found: its phonetic key, and its first and
// last three letters (so one typo anywhere leaves at least one key intact).
func blockKeys(tok string, add func(string)) {
	if len(tok) < 2 {
		return
	}
	add("p" + Phonetic(tok))
	if len(tok) >= 4 {
		add("b" + tok[:3])
		add("e" + tok[len(tok)-3:])
	} else {
		add("t" + tok)
	}
}

// NewIndex indexes a list version's entities under listID.
func NewIndex(listID string, entities []Entity) *Index {
	ix := &Index{listID: listID, entities: entities, postings: map[string][]int32{}, idf: map[string]float64{}}
	df := map[string]int{}
	for ei := range entities {
		e := &entities[ei]
		seen := map[string]bool{}
		for ni, n := range e.Names() {
			toks, abjad := nameTokens(n, e.Type)
			if len(toks) == 0 || len(toks) > 32 {
				continue
			}
			ix.names = append(ix.names, indexedName{entity: int32(ei), alias: ni > 0, text: n, prep: preparedName{toks: toks, abjad: abjad}})
			for _, t := range toks {
				if !seen[t] {
					seen[t] = true
					df[t]++
				}
			}
		}
	}
	n := float64(len(entities) + 1)
	for t, c := range df {
		ix.idf[t] = math.Log(1 + n/float64(c))
	}
	ix.defIDF = math.Log(1 + n/2) // an unseen token: as rare as a token seen once
	for i := range ix.names {
		nm := &ix.names[i]
		nm.prep.phon = make([]string, len(nm.prep.toks))
		nm.prep.fold = make([]string, len(nm.prep.toks))
		nm.prep.weights = make([]float64, len(nm.prep.toks))
		seen := map[string]bool{}
		add := func(k string) {
			if !seen[k] {
				seen[k] = true
				ix.postings[k] = append(ix.postings[k], int32(i))
			}
		}
		for k, t := range nm.prep.toks {
			nm.prep.phon[k] = Phonetic(t)
			nm.prep.fold[k] = FoldSpelling(t)
			nm.prep.weights[k] = ix.weight(t)
			blockKeys(t, add)
			if k+1 < len(nm.prep.toks) {
				blockKeys(t+nm.prep.toks[k+1], add)
			}
		}
		nm.prep.finish()
	}
	ix.scratch.New = func() any { s := make([]float32, len(ix.names)); return &s }
	return ix
}

// weight is a token's information: its inverse document frequency over the list, smaller
// for one-letter tokens.
func (ix *Index) weight(t string) float64 {
	w, ok := ix.idf[t]
	if !ok {
		w = ix.defIDF
	}
	if len(t) == 1 {
		w *= 0.5
	}
	return w
}

// Len is the number of entities in the index.
func (ix *Index) Len() int { return len(ix.entities) }

// ListID is the list the index was built for.
func (ix *Index) ListID() string { return ix.listID }

func (ix *Index) prepare(name string, t EntityType) preparedName {
	toks, abjad := nameTokens(name, t)
	if t != Person {
		toks, abjad = ix.dropLegalSlips(toks, abjad)
	}
	if len(toks) > 32 {
		toks, abjad = toks[:32], abjad[:32]
	}
	p := preparedName{toks: toks, abjad: abjad, phon: make([]string, len(toks)), fold: make([]string, len(toks)),
		weights: make([]float64, len(toks)), unknown: make([]bool, len(toks))}
	for k, tok := range toks {
		p.phon[k] = Phonetic(tok)
		p.fold[k] = FoldSpelling(tok)
		p.weights[k] = ix.weight(tok)
		_, known := ix.idf[tok]
		p.unknown[k] = !known && len(tok) > 1
	}
	p.finish()
	return p
}

// dropLegalSlips removes the query tokens that are misspelt legal forms the list never uses
// ("Golden Star Trading Compnay"): left in, such a token counts as an unmatched name and
// costs a true match about a third of its score. A name made only of them is kept whole.
func (ix *Index) dropLegalSlips(toks []string, abjad []bool) ([]string, []bool) {
	var out []string
	var outAbjad []bool
	for k, tok := range toks {
		if _, known := ix.idf[tok]; !known && misspeltLegalForm(tok) {
			if out == nil {
				out, outAbjad = append([]string{}, toks[:k]...), append([]bool{}, abjad[:k]...)
			}
			continue
		}
		if out != nil {
			out, outAbjad = append(out, tok), append(outAbjad, abjad[k])
		}
	}
	if len(out) == 0 { // nothing dropped, or nothing else left
		return toks, abjad
	}
	return out, outAbjad
}

// maxTouched bounds the names a query's keys may bring in; keys are read rarest first, so
// the names it leaves out share only common keys with the query.
const maxTouched = 4000

// candidates returns the names sharing the most key weight with the query name.
func (ix *Index) candidates(q *preparedName) []int32 {
	sp := ix.scratch.Get().(*[]float32)
	acc := *sp
	defer ix.scratch.Put(sp)
	var keys []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] && len(ix.postings[k]) > 0 {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for k, t := range q.toks {
		blockKeys(t, add)
		if k+1 < len(q.toks) {
			blockKeys(t+q.toks[k+1], add)
		}
	}
	slices.SortFunc(keys, func(a, b string) int { return len(ix.postings[a]) - len(ix.postings[b]) })
	total := float64(len(ix.names) + 1)
	touched := make([]int32, 0, 256)
	for _, k := range keys {
		post := ix.postings[k]
		w := float32(math.Log(1 + total/float64(len(post))))
		full := len(touched) >= maxTouched
		for _, ni := range post {
			if acc[ni] == 0 {
				if full {
					continue
				}
				touched = append(touched, ni)
			}
			acc[ni] += w
		}
	}
	if len(touched) > candidatesPerName {
		// Names above the k-th weight, then names tied with it up to a bound (duplicates
		// of one name in a large list tie by the thousand).
		kth := selectKth(touched, acc, candidatesPerName)
		kept := make([]int32, 0, 2*candidatesPerName)
		for _, ni := range touched {
			if acc[ni] > kth {
				kept = append(kept, ni)
			}
		}
		for _, ni := range touched {
			if acc[ni] == kth && len(kept) < 2*candidatesPerName {
				kept = append(kept, ni)
			}
			acc[ni] = 0
		}
		touched = kept
	}
	for _, ni := range touched {
		acc[ni] = 0
	}
	return touched
}

// selectKth returns the k-th largest accumulated weight among names (ties kept by caller).
func selectKth(names []int32, acc []float32, k int) float32 {
	v := make([]float32, len(names))
	for i, ni := range names {
		v[i] = acc[ni]
	}
	lo, hi, target := 0, len(v)-1, k-1
	for lo < hi {
		pivot := v[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for v[i] > pivot {
				i++
			}
			for v[j] < pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case target <= j:
			hi = j
		case target >= i:
			lo = i
		default:
			return v[target]
		}
	}
	return v[target]
}

// Search screens one query against the index and returns the hits at or above the
// threshold, best first, one per entity (its best-scoring name).
func (ix *Index) Search(q Query) []Hit { return ix.search(q, false) }

// SearchExhaustive scores every name of the list, without blocking: the reference that
// tests and benchmarks hold Search to. Never use it to serve a request.
func (ix *Index) SearchExhaustive(q Query) []Hit { return ix.search(q, true) }

func (ix *Index) search(q Query, exhaustive bool) []Hit {
	threshold := q.Threshold
	if threshold <= 0 {
		threshold = DefaultThreshold
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	country := ""
	if q.Country != "" {
		country, _ = CountryCode(q.Country)
	}
	type best struct {
		score float64
		name  int32
		qname int
	}
	bestBy := map[int32]best{}
	queries := append([]string{q.Name}, q.Aliases...)
	preps := make([]preparedName, len(queries))
	var buf []pairing
	for qi, qn := range queries {
		preps[qi] = ix.prepare(qn, q.Type)
		var cands []int32
		if exhaustive {
			cands = make([]int32, len(ix.names))
			for i := range cands {
				cands[i] = int32(i)
			}
		} else {
			cands = ix.candidates(&preps[qi])
		}
		for _, ni := range cands {
			nm := &ix.names[ni]
			if q.Only != nil && !q.Only[ix.entities[nm.entity].ID] {
				continue
			}
			s, _, _ := compareNamesBuf(&preps[qi], &nm.prep, false, &buf)
			if b, ok := bestBy[nm.entity]; !ok || s > b.score {
				bestBy[nm.entity] = best{s, ni, qi}
			}
		}
	}
	var hits []Hit
	for ei, b := range bestBy {
		if b.score+dobExact+ctyMatch < threshold {
			continue // no qualifier can lift it
		}
		e := &ix.entities[ei]
		nm := &ix.names[b.name]
		ns, toks, unmatched := compareNames(&preps[b.qname], &nm.prep, true)
		ex := Explanation{MatchedName: nm.text, IsAlias: nm.alias, NameScore: round3(ns), Tokens: toks, Unmatched: unmatched,
			BirthDate: birthDateFeature(q.BirthDate, e.BirthDates), Country: countryFeature(country, e.Countries),
			EntityType: typeFeature(q.Type, e.Type)}
		ex.Final = round3(clamp01(ns + ex.BirthDate.Score + ex.Country.Score + ex.EntityType.Score))
		if ex.Final < threshold {
			continue
		}
		hits = append(hits, Hit{ListID: ix.listID, EntityID: e.ID, Name: e.Name, MatchedName: nm.text, Score: ex.Final, Explanation: ex, Entity: e})
	}
	SortHits(hits)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// SortHits orders hits best first, then by list and entity id so equal scores are stable.
func SortHits(hits []Hit) {
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].Score != hits[b].Score {
			return hits[a].Score > hits[b].Score
		}
		if hits[a].ListID != hits[b].ListID {
			return hits[a].ListID < hits[b].ListID
		}
		return hits[a].EntityID < hits[b].EntityID
	})
}
