package statements_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/internal/statements/fixtures"
)

// wantSame checks a parsed statement against its truth: every transaction's date, signed
// amount and description, and the balances.
func wantSame(t *testing.T, name string, tr fixtures.Truth, st *statements.Statement, balances bool) {
	t.Helper()
	if len(st.Transactions) != len(tr.Transactions) {
		t.Fatalf("%s: %d transactions, want %d", name, len(st.Transactions), len(tr.Transactions))
	}
	for i, want := range tr.Transactions {
		got := st.Transactions[i]
		if !got.Date.Equal(want.Date) || got.Amount != want.Amount || got.Description != want.Description() {
			t.Errorf("%s row %d: %s %q %s, want %s %q %s", name, i, got.Date.Format("2006-01-02"), got.Description, got.Amount,
				want.Date.Format("2006-01-02"), want.Description(), want.Amount)
		}
		if balances && (got.Balance == nil || *got.Balance != want.Balance) {
			t.Errorf("%s row %d: balance %v, want %s", name, i, got.Balance, want.Balance)
		}
	}
	if st.Opening == nil || *st.Opening != tr.Opening || st.Closing == nil || *st.Closing != tr.Closing {
		t.Errorf("%s: balances %v → %v, want %s → %s", name, st.Opening, st.Closing, tr.Opening, tr.Closing)
	}
}

// TestMachineReadableFiles parses the CSV (both number formats, newest first), OFX and
// CAMT.053 renderings of generated statements, sniffed from their bytes, and reconciles
// consecutive CAMT statements, including their continuity.
func TestMachineReadableFiles(t *testing.T) {
	r := statements.NewReader(documents.Config{})
	ctx := context.Background()
	for _, id := range fixtures.TemplateIDs {
		trs := fixtures.Series(7, fixtures.Template(id), 3, 30)
		for _, newest := range []bool{false, true} {
			fr, err := r.ReadFile(ctx, 0, fixtures.CSV(trs[0], newest), "", nil, "")
			if err != nil {
				t.Fatalf("%s csv: %v", id, err)
			}
			if fr.Kind != statements.KindCSV || fr.Statements[0].Currency != trs[0].Template.Currency {
				t.Errorf("%s csv: kind %s currency %s", id, fr.Kind, fr.Statements[0].Currency)
			}
			wantSame(t, id+" csv", trs[0], fr.Statements[0], true)
		}
		fr, err := r.ReadFile(ctx, 0, fixtures.OFX(trs[1]), "", nil, "")
		if err != nil {
			t.Fatalf("%s ofx: %v", id, err)
		}
		if fr.Kind != statements.KindOFX {
			t.Errorf("%s ofx: kind %s", id, fr.Kind)
		}
		wantSame(t, id+" ofx", trs[1], fr.Statements[0], false)
		fr, err = r.ReadFile(ctx, 0, fixtures.CAMT(trs), "", nil, "")
		if err != nil {
			t.Fatalf("%s camt: %v", id, err)
		}
		if fr.Kind != statements.KindCAMT || len(fr.Statements) != 3 {
			t.Fatalf("%s camt: kind %s, %d statements", id, fr.Kind, len(fr.Statements))
		}
		for i := range trs {
			wantSame(t, id+" camt", trs[i], fr.Statements[i], false)
		}
		rec := statements.Reconcile(fr.Statements)
		if !rec.OK || len(rec.Continuity) != 2 || !rec.Continuity[0].OK || rec.Continuity[0].Skipped {
			t.Errorf("%s camt: reconciliation %+v", id, rec)
		}
	}
}

// TestEncryptedNeedsPassword: an encrypted statement without its password, or with a
// wrong one, fails at inspect with the documents engine's password_required kind; with it
// the statement reads.
func TestEncryptedNeedsPassword(t *testing.T) {
	requireTools(t)
	r := statements.NewReader(documents.Config{})
	for _, s := range testCorpus(t) {
		if s.Kind != fixtures.KindEncrypted {
			continue
		}
		for _, pw := range []documents.Password{"", "wrong"} {
			_, err := r.ReadFile(context.Background(), 0, s.Data, pw, nil, "")
			if !statements.NeedsPassword(err) || statements.StageOf(err) != statements.StageInspect {
				t.Errorf("%s with password %q: %v, want password required at inspect", s.Name, string(pw), err)
			}
			if strings.Contains(statements.Message(err), fixtures.Password) {
				t.Errorf("%s: the message shows the password", s.Name)
			}
		}
		return
	}
	t.Fatal("the corpus has no encrypted sample")
}

// TestBadInput: each bad file fails with a stage and a message that says what is wrong.
func TestBadInput(t *testing.T) {
	requireTools(t)
	r := statements.NewReader(documents.Config{MaxPages: 20})
	letter := letterPDF(t)
	big := bigPDF(t, 25)
	cases := []struct {
		name  string
		data  []byte
		stage statements.Stage
		kind  error
		msg   string
	}{
		{"empty file", nil, statements.StageInspect, statements.ErrMalformed, "empty"},
		{"random bytes", []byte("\x00\x01\x02 hello"), statements.StageInspect, statements.ErrNotStatement, "not a PDF, CSV"},
		{"empty csv", []byte("Date,Description,Amount\n"), statements.StageParse, statements.ErrNotStatement, "no transactions"},
		{"csv without header", []byte("a,b,c\n1,2,3\n"), statements.StageParse, statements.ErrNotStatement, "no header row"},
		{"csv bad amount", []byte("Date,Description,Amount\n2024-01-02,COFFEE,-3.50\n2024-01-03,TEA,12.3.4x\n"), statements.StageParse, statements.ErrMalformed, "amount"},
		{"csv bad date", []byte("Date,Description,Amount\n2024-13-45,COFFEE,-3.50\n"), statements.StageParse, statements.ErrMalformed, "date"},
		{"ofx broken header", []byte("OFXHEADER:100\nDATA OFXSGML\n\n<OFX></OFX>"), statements.StageParse, statements.ErrMalformed, "OFX header is broken"},
		{"ofx wrong version", []byte("OFXHEADER:100\nDATA:XML\n\n<OFX></OFX>"), statements.StageParse, statements.ErrMalformed, "OFX header is broken"},
		{"ofx bad amount", []byte("OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><STMTRS><CURDEF>USD<STMTTRN><DTPOSTED>20240102<TRNAMT>12..3</STMTTRN></STMTRS></OFX>"), statements.StageParse, statements.ErrMalformed, "amount"},
		{"camt not xml", []byte("<?xml version=\"1.0\"?><Document><BkToCstmrStmt><Stmt><Bal>"), statements.StageParse, statements.ErrMalformed, "not well-formed"},
		{"camt bad amount", []byte(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><Stmt><Ntry><Amt Ccy="EUR">1,2.3</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2024-01-02</Dt></BookgDt></Ntry></Stmt></BkToCstmrStmt></Document>`), statements.StageParse, statements.ErrMalformed, "amount"},
		{"pdf that is not a statement", letter, statements.StageDetect, statements.ErrNotStatement, "no bank statement layout"},
		{"pdf with too many pages", big, statements.StageInspect, statements.ErrTooLarge, "at most 20"},
	}
	for _, c := range cases {
		_, err := r.ReadFile(context.Background(), 0, c.data, "", nil, "USD")
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if statements.StageOf(err) != c.stage || !errors.Is(err, c.kind) || !strings.Contains(statements.Message(err), c.msg) {
			t.Errorf("%s: stage %q message %q (%v), want stage %q, kind %v, message with %q", c.name, statements.StageOf(err), statements.Message(err), err, c.stage, c.kind, c.msg)
		}
		if !statements.IsPermanent(err) {
			t.Errorf("%s: a bad file must not be retried", c.name)
		}
	}
	// The 500-page file, against the default limit: refused at inspection, before any
	// page is read.
	_, err := statements.NewReader(documents.Config{}).ReadFile(context.Background(), 0, bigPDF(t, 500), "", nil, "USD")
	want := fmt.Sprintf("at most %d", statements.DefaultMaxPages)
	if statements.StageOf(err) != statements.StageInspect || !errors.Is(err, statements.ErrTooLarge) || !strings.Contains(statements.Message(err), want) {
		t.Errorf("500 pages: stage %q message %q (%v), want an inspect failure with %q", statements.StageOf(err), statements.Message(err), err, want)
	}
}
