package statements_test

import (
	"testing"

	"github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/internal/statements/fixtures"
)

// TestTamperDetection analyses every tampered copy of the corpus (an amount edited in
// another font and saved again incrementally) and every clean text and scanned statement:
// each tampered copy must go to review with the font signal on the edited page, the
// incremental update, the new producer and the failed reconciliation (naming the edited
// row when the layout prints running balances); no clean copy may
// raise any signal (false alarms).
func TestTamperDetection(t *testing.T) {
	results, errs := readCorpus(t)
	var tampered, detected, clean, alarms int
	for _, s := range testCorpus(t) {
		if s.Kind == fixtures.KindEncrypted {
			continue
		}
		fr, err := results[s.Name], errs[s.Name]
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		res := statements.Analyze([]*statements.FileResult{fr}, [][]byte{s.Data}, nil)
		kinds := map[statements.SignalKind]statements.Signal{}
		for _, sg := range res.Signals.Signals {
			if _, ok := kinds[sg.Kind]; !ok {
				kinds[sg.Kind] = sg
			}
		}
		if s.Kind != fixtures.KindTampered {
			clean++
			if len(res.Signals.Signals) > 0 || res.Status != statements.StatusCompleted {
				alarms++
				t.Errorf("%s: a clean statement raised %+v (status %s, reasons %v)", s.Name, res.Signals.Signals, res.Status, res.Reasons)
			}
			continue
		}
		tampered++
		row := s.Truth.Transactions[s.TamperedRow]
		font, ok := kinds[statements.SignalFont]
		if !ok || font.Field != "amount" || font.Actual != "Times" || font.Expected != "Helvetica" || font.Page < 1 {
			t.Errorf("%s: no font signal on the edited amount: %+v", s.Name, res.Signals.Signals)
		}
		for _, k := range []statements.SignalKind{statements.SignalIncremental, statements.SignalProducer, statements.SignalModified, statements.SignalReconciliation} {
			if _, ok := kinds[k]; !ok {
				t.Errorf("%s: no %s signal", s.Name, k)
			}
		}
		rec := kinds[statements.SignalReconciliation]
		balances := false
		for _, c := range s.Truth.Template.Columns {
			balances = balances || c.Kind == statements.ColBalance
		}
		// Without printed running balances only the totals can fail, and no row is named.
		if balances && (rec.Row == nil || *rec.Row != s.TamperedRow || rec.Page < 1) {
			t.Errorf("%s: the reconciliation signal names row %v page %d, want row %d (%s %s)", s.Name, rec.Row, rec.Page, s.TamperedRow, row.Date.Format("2006-01-02"), row.Description())
		}
		if res.Status == statements.StatusRequiresReview && res.Signals.Risk >= statements.ReviewRisk && len(kinds) >= 5 {
			detected++
		}
	}
	t.Logf("tampered copies detected: %d of %d; false alarms on clean copies: %d of %d", detected, tampered, alarms, clean)
	if tampered != len(fixtures.TemplateIDs) || detected != tampered {
		t.Errorf("detected %d of %d tampered copies (want all %d layouts)", detected, tampered, len(fixtures.TemplateIDs))
	}
}
