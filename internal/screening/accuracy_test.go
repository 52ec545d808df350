package screening_test

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/internal/screening/fixtures"
)

// The bar the product promises at the default threshold.
const (
	minRecall    = 0.98
	minPrecision = 0.95
)

type score struct{ tp, fp, fn, tn int }

func (s score) precision() float64 { return float64(s.tp) / float64(max(1, s.tp+s.fp)) }
func (s score) recall() float64    { return float64(s.tp) / float64(max(1, s.tp+s.fn)) }
func (s score) f1() float64 {
	p, r := s.precision(), s.recall()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// evaluate screens every labelled query at the default threshold. A query is a true positive
// when its wanted entity is among the hits; hits for a non-match query, or hits without the
// wanted entity, are false positives.
func evaluate(t *testing.T, ix *screening.Index, set []fixtures.Labelled, verbose bool) score {
	var total score
	byKind := map[string]*score{}
	var misses []string
	for _, l := range set {
		hits := ix.Search(l.Query)
		k := byKind[l.Kind]
		if k == nil {
			k = &score{}
			byKind[l.Kind] = k
		}
		found := false
		for _, h := range hits {
			found = found || h.EntityID == l.Want
		}
		switch {
		case l.Want != "" && found:
			total.tp++
			k.tp++
		case l.Want != "" && len(hits) > 0:
			total.fp++
			total.fn++
			k.fp++
			k.fn++
			misses = append(misses, fmt.Sprintf("wrong %s %q want %s got %s %q %.3f", l.Kind, l.Query.Name, l.Want, hits[0].EntityID, hits[0].MatchedName, hits[0].Score))
		case l.Want != "":
			total.fn++
			k.fn++
			misses = append(misses, fmt.Sprintf("miss %s %q want %s", l.Kind, l.Query.Name, l.Want))
		case len(hits) > 0:
			total.fp++
			k.fp++
			misses = append(misses, fmt.Sprintf("fp %s %q dob=%v got %q %.3f %+v", l.Kind, l.Query.Name, l.Query.BirthDate, hits[0].MatchedName, hits[0].Score, hits[0].Explanation))
		default:
			total.tn++
			k.tn++
		}
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		s := byKind[k]
		t.Logf("%-18s tp=%4d fn=%3d fp=%3d tn=%4d", k, s.tp, s.fn, s.fp, s.tn)
	}
	if verbose {
		sort.Strings(misses)
		t.Log("\n" + strings.Join(misses, "\n"))
	}
	return total
}

// TestAccuracy measures precision, recall and F1 on labelled queries from fixture lists of
// seeds the engine was not tuned on (its constants were chosen on seed 1, which is not tested here).
func TestAccuracy(t *testing.T) {
	for _, seed := range []uint64{2, 3} {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			l := fixtures.Generate(seed, 3000)
			entities := l.Entities
			if seed == 3 { // screen the list as read back from OFAC's files: "SURNAME, Given" and all
				var sdn, alt, add bytes.Buffer
				if err := l.WriteOFAC(&sdn, &alt, &add); err != nil {
					t.Fatal(err)
				}
				var err error
				if entities, err = screening.LoadOFAC(&sdn, &alt, &add); err != nil {
					t.Fatal(err)
				}
			}
			ix := screening.NewIndex("fixture", entities)
			set := fixtures.EvalSet(l, seed*7919, 2500)
			s := evaluate(t, ix, set, testing.Verbose())
			t.Logf("queries=%d precision=%.4f recall=%.4f F1=%.4f (threshold %.2f)", len(set), s.precision(), s.recall(), s.f1(), screening.DefaultThreshold)
			if s.recall() < minRecall || s.precision() < minPrecision {
				t.Errorf("precision %.4f (min %.2f), recall %.4f (min %.2f)", s.precision(), minPrecision, s.recall(), minRecall)
			}
		})
	}
}

// TestBlockingLosesNothing checks that the index's blocking returns the same best hit as
// scoring every name of the list, on a sample of the evaluation queries.
func TestBlockingLosesNothing(t *testing.T) {
	l := fixtures.Generate(4, 3000)
	ix := screening.NewIndex("fixture", l.Entities)
	set := fixtures.EvalSet(l, 4, 120)
	lost := 0
	for _, q := range set {
		full := ix.SearchExhaustive(q.Query)
		if len(full) == 0 {
			continue
		}
		found := false
		for _, h := range ix.Search(q.Query) {
			found = found || (h.EntityID == full[0].EntityID || h.Score == full[0].Score)
		}
		if !found {
			lost++
			t.Logf("blocking lost %q: exhaustive best %s %q %.3f", q.Query.Name, full[0].EntityID, full[0].MatchedName, full[0].Score)
		}
	}
	if lost > len(set)/100 {
		t.Errorf("blocking lost the best hit of %d of %d queries", lost, len(set))
	}
}
