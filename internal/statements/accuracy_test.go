package statements_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/internal/statements/fixtures"
)

// The accuracy bars of the bank statement product.
const (
	minTextPR = 0.99
	minScanPR = 0.95
)

var (
	corpusOnce sync.Once
	corpus     []fixtures.Sample
	errCorpus  error
)

// testCorpus is generated once per test binary: every layout with two consecutive
// months, a scan, an encrypted and a tampered copy.
func testCorpus(t *testing.T) []fixtures.Sample {
	t.Helper()
	corpusOnce.Do(func() {
		corpus, errCorpus = fixtures.Corpus(context.Background(), 1, fixtures.CorpusOptions{Scans: true, Encrypted: true, Tampered: true})
	})
	if errCorpus != nil {
		t.Fatal(errCorpus)
	}
	return corpus
}

var (
	readOnce sync.Once
	readRes  map[string]*statements.FileResult
	readErrs map[string]error
)

// readCorpus reads every corpus sample once per test binary (OCR takes seconds a page);
// encrypted samples are read with their password.
func readCorpus(t *testing.T) (map[string]*statements.FileResult, map[string]error) {
	t.Helper()
	requireTools(t)
	samples := testCorpus(t)
	readOnce.Do(func() {
		r := statements.NewReader(documents.Config{})
		readRes, readErrs = map[string]*statements.FileResult{}, map[string]error{}
		for _, s := range samples {
			pw := documents.Password("")
			if s.Kind == fixtures.KindEncrypted {
				pw = fixtures.Password
			}
			fr, err := r.ReadFile(context.Background(), 0, s.Data, pw, nil, "")
			readRes[s.Name], readErrs[s.Name] = fr, err
		}
	})
	return readRes, readErrs
}

func requireTools(t *testing.T) {
	t.Helper()
	if err := statements.NewReader(documents.Config{}).Engine().CheckTools(context.Background()); err != nil {
		t.Fatalf("the documents engine's tools are missing (install internal/documents/APT_PACKAGES): %v", err)
	}
}

// match counts the parsed transactions that equal a true one (same date, amount,
// balance when printed, and description; OCR'd descriptions may differ by a tenth).
func match(truth fixtures.Truth, got *statements.Statement, ocr bool) (matched int) {
	used := make([]bool, len(truth.Transactions))
	hasBalance := false
	for _, c := range truth.Template.Columns {
		hasBalance = hasBalance || c.Kind == statements.ColBalance
	}
	for _, tx := range got.Transactions {
		for i, want := range truth.Transactions {
			if used[i] || !tx.Date.Equal(want.Date) || tx.Amount != want.Amount {
				continue
			}
			if hasBalance && (tx.Balance == nil || *tx.Balance != want.Balance) {
				continue
			}
			if !sameDescription(want.Description(), tx.Description, ocr) {
				continue
			}
			used[i] = true
			matched++
			break
		}
	}
	return matched
}

func sameDescription(want, got string, ocr bool) bool {
	w, g := strings.Join(strings.Fields(want), " "), strings.Join(strings.Fields(got), " ")
	if w == g {
		return true
	}
	if !ocr {
		return false
	}
	return float64(levenshtein(w, g)) <= 0.1*float64(len([]rune(w)))
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// pr counts transactions; repaired are the parsed ones whose amount or balance came
// from the running-balance checksum rather than from the OCR'd text.
type pr struct{ truth, parsed, matched, repaired int }

func (p pr) precision() float64 { return ratio(p.matched, p.parsed) }
func (p pr) recall() float64    { return ratio(p.matched, p.truth) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// TestCorpusAccuracy reads every clean sample of the generated corpus (five layouts,
// multi-page text PDFs, encrypted copies, scanned copies) through the documents engine
// and the templates, and measures transaction precision and recall against the ground
// truth: it fails below 0.99 on text PDFs and 0.95 on scans. It also reports the
// reconciliation rate, which must be 1 on clean text statements.
func TestCorpusAccuracy(t *testing.T) {
	results, errs := readCorpus(t)
	stats := map[string]*pr{}
	reconciled, statementsN := map[string]int{}, map[string]int{}
	for _, s := range testCorpus(t) {
		if s.Kind == fixtures.KindTampered {
			continue
		}
		kind := "text"
		if s.Kind == fixtures.KindScan {
			kind = "scan"
		}
		p := stats[kind]
		if p == nil {
			p = &pr{}
			stats[kind] = p
		}
		p.truth += len(s.Truth.Transactions)
		statementsN[kind]++
		fr, err := results[s.Name], errs[s.Name]
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		if fr.Detection == nil || fr.Detection.ID != s.Truth.Template.ID {
			t.Errorf("%s: detected %+v, want %s", s.Name, fr.Detection, s.Truth.Template.ID)
		}
		st := fr.Statements[0]
		p.parsed += len(st.Transactions)
		for _, tx := range st.Transactions {
			if tx.AmountFromBalance || tx.BalanceInferred {
				p.repaired++
			}
		}
		m := match(s.Truth, st, kind == "scan")
		p.matched += m
		if m != len(s.Truth.Transactions) && testing.Verbose() {
			t.Logf("%s: %d of %d transactions matched (%d parsed)", s.Name, m, len(s.Truth.Transactions), len(st.Transactions))
			if os.Getenv("STATEMENTS_DEBUG") != "" {
				for i, tx := range st.Transactions {
					t.Logf("  got  %s %q %s %v", tx.Date.Format("2006-01-02"), tx.Description, tx.Amount, tx.Balance)
					if i < len(s.Truth.Transactions) {
						w := s.Truth.Transactions[i]
						t.Logf("  want %s %q %s %s", w.Date.Format("2006-01-02"), w.Description(), w.Amount, w.Balance)
					}
				}
			}
		}
		if st.Opening == nil || *st.Opening != s.Truth.Opening || st.Closing == nil || *st.Closing != s.Truth.Closing {
			t.Errorf("%s: balances %v → %v, want %s → %s", s.Name, st.Opening, st.Closing, s.Truth.Opening, s.Truth.Closing)
		}
		if st.PeriodStart == nil || !st.PeriodStart.Equal(s.Truth.PeriodStart) || !st.PeriodEnd.Equal(s.Truth.PeriodEnd) {
			t.Errorf("%s: period %v – %v, want %v – %v", s.Name, st.PeriodStart, st.PeriodEnd, s.Truth.PeriodStart, s.Truth.PeriodEnd)
		}
		if rec := statements.Reconcile(fr.Statements); rec.OK {
			reconciled[kind]++
		} else if kind == "text" {
			t.Errorf("%s: a clean statement does not reconcile: %+v", s.Name, rec.Statements[0].Failures)
		}
	}
	for kind, p := range stats {
		t.Logf("%s: transactions %d true, %d parsed, %d matched (%d repaired from running balances): precision %.4f recall %.4f; reconciled %d of %d statements",
			kind, p.truth, p.parsed, p.matched, p.repaired, p.precision(), p.recall(), reconciled[kind], statementsN[kind])
		bar := minTextPR
		if kind == "scan" {
			bar = minScanPR
		}
		if p.precision() < bar || p.recall() < bar {
			t.Errorf("%s: precision %.4f / recall %.4f below %.2f", kind, p.precision(), p.recall(), bar)
		}
	}
	if len(stats) != 2 {
		t.Errorf("the corpus must hold text and scanned samples, got %v", stats)
	}
}
