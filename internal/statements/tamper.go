package statements

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// SignalKind names a tamper signal.
type SignalKind string

// The tamper signals.
const (
	SignalProducer       SignalKind = "producer_mismatch"
	SignalModified       SignalKind = "modified_after_creation"
	SignalIncremental    SignalKind = "incremental_update"
	SignalFont           SignalKind = "font_mismatch"
	SignalReconciliation SignalKind = "reconciliation_failed"
	SignalDuplicate      SignalKind = "duplicate_rows"
)

// signalWeights are each kind's contribution to the risk score; a kind counts once.
var signalWeights = map[SignalKind]int{
	SignalFont:           40,
	SignalIncremental:    25,
	SignalReconciliation: 30,
	SignalProducer:       20,
	SignalModified:       15,
	SignalDuplicate:      15,
}

// Signal is evidence, never a verdict: what was seen, where (page, field, row), and the
// expected and actual values.
type Signal struct {
	Kind      SignalKind `json:"kind"`
	File      int        `json:"file"`
	Page      int        `json:"page,omitempty"`
	Field     string     `json:"field"`
	Row       *int       `json:"row,omitempty"`
	Expected  string     `json:"expected,omitempty"`
	Actual    string     `json:"actual,omitempty"`
	Message   string     `json:"message"`
	Statement *int       `json:"statement,omitempty"`
}

// Signals is the tamper evidence of an analysis with its overall risk score (0–100).
type Signals struct {
	Signals []Signal `json:"signals"`
	Risk    int      `json:"risk"`
}

// PDFEvidence is what the tamper checks know about one PDF file.
type PDFEvidence struct {
	File int
	Meta *PDFMeta
	// Template is the detected bank's template (nil when none).
	Template *Template
	// Scanned is true when the pages were OCR'd: a scanner's producer is expected then.
	Scanned bool
	// Data is the file (unencrypted files only: encrypted content cannot be read here).
	Data []byte
}

// pdfSignals checks one PDF's making: producer, dates, revisions, fonts of amounts.
func pdfSignals(ev PDFEvidence) []Signal {
	var out []Signal
	m := ev.Meta
	if m == nil {
		return nil
	}
	if ev.Template != nil && !ev.Scanned && !m.Encrypted && (m.Producer != "" || m.Creator != "") && !producerMatches(m, ev.Template) {
		out = append(out, Signal{Kind: SignalProducer, File: ev.File, Field: "producer",
			Expected: strings.Join(ev.Template.Producers, " | "), Actual: cmpOr(m.Producer, m.Creator),
			Message: fmt.Sprintf("the PDF was produced by %q, not by the system %s uses", clip(cmpOr(m.Producer, m.Creator)), ev.Template.Bank)})
	}
	if m.CreationDate != nil && m.ModDate != nil && m.ModDate.Sub(*m.CreationDate) > time.Minute {
		out = append(out, Signal{Kind: SignalModified, File: ev.File, Field: "modDate",
			Expected: m.CreationDate.Format(time.RFC3339), Actual: m.ModDate.Format(time.RFC3339),
			Message: "the PDF was modified after it was created"})
	}
	if m.Revisions > 1 {
		msg := fmt.Sprintf("the PDF was saved %d times (incremental updates after creation)", m.Revisions)
		if m.FirstProducer != "" {
			msg += fmt.Sprintf("; the producer changed from %q to %q", clip(m.FirstProducer), clip(m.Producer))
		}
		out = append(out, Signal{Kind: SignalIncremental, File: ev.File, Field: "revisions", Expected: "1",
			Actual: fmt.Sprint(m.Revisions), Message: msg})
	}
	if !m.Encrypted && ev.Data != nil {
		out = append(out, fontSignals(ev)...)
	}
	return out
}

var amountShape = regexp.MustCompile(`^[-+(]?\d[\d.,'’ ]*[.,]\d\d\)?-?$`)

// fontSignals flags amounts shown in a font unlike the page's other amounts.
func fontSignals(ev PDFEvidence) []Signal {
	byPage := map[int][]shownText{}
	for _, s := range pageTexts(parsePDF(ev.Data)) {
		t := strings.TrimSpace(s.Text)
		if amountShape.MatchString(t) {
			s.Text, s.Font = t, fontFamily(s.Font)
			byPage[s.Page] = append(byPage[s.Page], s)
		}
	}
	pages := make([]int, 0, len(byPage))
	for p := range byPage {
		pages = append(pages, p)
	}
	sort.Ints(pages)
	var out []Signal
	for _, p := range pages {
		amounts := byPage[p]
		count := map[string]int{}
		for _, a := range amounts {
			count[a.Font]++
		}
		major, n := "", 0
		for f, c := range count {
			if c > n || (c == n && f < major) {
				major, n = f, c
			}
		}
		if n < 3 || len(count) < 2 {
			continue
		}
		for _, a := range amounts {
			if a.Font != major && count[a.Font]*5 <= n {
				out = append(out, Signal{Kind: SignalFont, File: ev.File, Page: p, Field: "amount", Expected: major, Actual: a.Font,
					Message: fmt.Sprintf("the amount %s on page %d is set in %s; the page's other amounts are in %s", a.Text, p, a.Font, major)})
			}
		}
	}
	return out
}

// fontFamily reduces a base font name to its family: the subset tag ("ABCDEF+") and the
// weight or slant ("-Bold", ",Italic") go, since totals are often set in bold.
func fontFamily(name string) string {
	if i := strings.IndexByte(name, '+'); i == 6 {
		name = name[i+1:]
	}
	if i := strings.IndexAny(name, "-,"); i > 0 {
		name = name[:i]
	}
	return name
}

// statementSignals flags failed reconciliations and duplicated rows.
func statementSignals(sts []*Statement, files []int, rec *Reconciliation) []Signal {
	var out []Signal
	for _, sr := range rec.Statements {
		si := sr.Statement
		for _, c := range sr.Failures {
			s := Signal{Kind: SignalReconciliation, File: files[si], Page: c.Page, Field: c.Name, Row: c.Row,
				Message: c.Message, Statement: &si}
			if c.Expected != nil {
				s.Expected, s.Actual = c.Expected.String(), c.Actual.String()
			}
			out = append(out, s)
		}
	}
	for si, st := range sts {
		seen := map[string]int{}
		for i, tx := range st.Transactions {
			if tx.Balance == nil {
				continue // without a printed balance, two equal rows can be two real purchases
			}
			k := fmt.Sprint(tx.Date.Format(time.DateOnly), "|", tx.Amount, "|", *tx.Balance, "|", strings.ToLower(tx.Description))
			if j, dup := seen[k]; dup {
				row, si := i, si
				out = append(out, Signal{Kind: SignalDuplicate, File: files[si], Page: tx.Page, Field: "transaction", Row: &row,
					Statement: &si, Expected: "a unique row", Actual: fmt.Sprintf("the same as row %d", j+1),
					Message: fmt.Sprintf("row %d repeats row %d (date, amount, balance and description)", i+1, j+1)})
				continue
			}
			seen[k] = i
		}
	}
	return out
}

// TamperSignals gathers the signals of the PDFs and of the parsed statements (files[i] is
// the file statement i came from) and scores them: each kind seen adds its weight, capped
// at 100.
func TamperSignals(pdfs []PDFEvidence, sts []*Statement, files []int, rec *Reconciliation) *Signals {
	s := &Signals{Signals: []Signal{}}
	for _, ev := range pdfs {
		s.Signals = append(s.Signals, pdfSignals(ev)...)
	}
	if rec != nil {
		s.Signals = append(s.Signals, statementSignals(sts, files, rec)...)
	}
	s.Risk = riskOf(s.Signals)
	return s
}

// riskOf scores signals: each kind seen adds its weight once, capped at 100.
func riskOf(signals []Signal) int {
	risk := 0
	kinds := map[SignalKind]bool{}
	for _, sg := range signals {
		if !kinds[sg.Kind] {
			kinds[sg.Kind] = true
			risk += signalWeights[sg.Kind]
		}
	}
	return min(risk, 100)
}
