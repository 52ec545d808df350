package statements_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/internal/statements/fixtures"
)

// checkStatements runs the later stages on whatever a parser returned: they must not
// panic on hostile input either, and a statement always has a transaction list.
func checkStatements(t *testing.T, sts []*statements.Statement) {
	t.Helper()
	for _, st := range sts {
		if st == nil || st.Transactions == nil {
			t.Fatalf("a parser returned a nil statement or transaction list")
		}
	}
	rec := statements.Reconcile(sts)
	statements.ComputeInsights(sts, nil)
	files := make([]int, len(sts))
	statements.TamperSignals(nil, sts, files, rec)
}

func FuzzParseCSV(f *testing.F) {
	for _, id := range fixtures.TemplateIDs {
		f.Add(fixtures.CSV(fixtures.Series(3, fixtures.Template(id), 1, 6)[0], false))
	}
	f.Add([]byte("Date;Betrag;Saldo\n01.02.2024;-1.234,56;99,00\n"))
	f.Add([]byte("Date,Debit,Credit,Balance\n01/02/2024,,\"1,000.00\",5.00\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := statements.ParseCSV(data, "USD")
		if err != nil {
			if statements.StageOf(err) != statements.StageParse || statements.Message(err) == "" {
				t.Fatalf("error without stage or message: %v", err)
			}
			return
		}
		checkStatements(t, []*statements.Statement{st})
	})
}

func FuzzParseOFX(f *testing.F) {
	for _, id := range fixtures.TemplateIDs[:2] {
		f.Add(fixtures.OFX(fixtures.Series(3, fixtures.Template(id), 1, 5)[0]))
	}
	f.Add([]byte(`<?xml version="1.0"?><?OFX OFXHEADER="200" VERSION="220"?><OFX><STMTRS><CURDEF>EUR</CURDEF><STMTTRN><DTPOSTED>20240102</DTPOSTED><TRNAMT>-1.5</TRNAMT></STMTTRN><LEDGERBAL><BALAMT>10</BALAMT></LEDGERBAL></STMTRS></OFX>`))
	f.Add([]byte("OFXHEADER:100\n<OFX>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sts, err := statements.ParseOFX(data)
		if err != nil {
			if statements.StageOf(err) != statements.StageParse {
				t.Fatalf("error without stage: %v", err)
			}
			return
		}
		checkStatements(t, sts)
	})
}

func FuzzParseCAMT(f *testing.F) {
	f.Add(fixtures.CAMT(fixtures.Series(3, fixtures.Template("rheinbank-de"), 2, 5)))
	f.Add([]byte(`<Document><BkToCstmrStmt><Stmt><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">1</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal></Stmt></BkToCstmrStmt></Document>`))
	f.Add([]byte(`<!DOCTYPE x [<!ENTITY a "aaaaaaaa">]><Document>&a;</Document>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sts, err := statements.ParseCAMT(data)
		if err != nil {
			if statements.StageOf(err) != statements.StageParse {
				t.Fatalf("error without stage: %v", err)
			}
			return
		}
		checkStatements(t, sts)
	})
}

// layoutLines turns text into engine lines: a form feed starts a page, each
// whitespace-separated field is a word at its column (× 10, as the text layer counts),
// three spaces before it a column gap; ocr marks the lines as OCR'd so the repairs run too.
func layoutLines(text string, ocr bool) []documents.Line {
	src := documents.SourceTextLayer
	if ocr {
		src = documents.SourceOCR
	}
	var out []documents.Line
	for page, ptext := range strings.Split(text, "\f") {
		for _, raw := range strings.Split(ptext, "\n") {
			l := documents.Line{Page: page + 1, Source: src}
			at := 0
			for _, f := range strings.Fields(raw) {
				i := at + strings.Index(raw[at:], f)
				gap := len(l.Words) > 0 && i-at >= 3
				l.Words = append(l.Words, documents.Word{Text: f, Conf: 0.9, X0: i * 10, X1: (i + len(f)) * 10, Gap: gap})
				at = i + len(f)
			}
			if len(l.Words) > 0 {
				out = append(out, l)
			}
		}
	}
	return out
}

func FuzzParseLines(f *testing.F) {
	f.Add(`Northwind Bank
Statement Period: 01/01/2024 - 01/31/2024
Beginning Balance                                   1,000.00
Date         Description            Withdrawals   Deposits     Balance
01/02/2024   COFFEE HOUSE                  3.50                 996.50
             CARD 1234 REF 99
01/03/2024   PAYROLL ACME                           2,000.00  2,996.50
Ending Balance                                      2,996.50`, false)
	f.Add(`Banque Lumière
Solde précédent            1 234,56
Date          Libellé                 Débit      Crédit
02/01/2024    LOYER                 1 000,00
Nouveau solde                 234,56`, true)
	f.Add(`Thames Savings Bank
Date          Details               Amount     Balance
02 Jan 2024   TESCO                 -12.00      =88:00
`+"\f"+`02 Jan 2024   SHELL                 -1O.00      78.00`, true)
	f.Fuzz(func(t *testing.T, text string, ocr bool) {
		lines := layoutLines(text, ocr)
		for _, tpl := range statements.BuiltinTemplates() {
			st, err := statements.ParseLines(lines, &tpl)
			if err != nil {
				if statements.StageOf(err) != statements.StageParse {
					t.Fatalf("error without stage: %v", err)
				}
				continue
			}
			checkStatements(t, []*statements.Statement{st})
		}
		if _, err := statements.Detect(text, nil, statements.BuiltinTemplates()); err != nil && statements.StageOf(err) != statements.StageDetect {
			t.Fatalf("detect error without stage: %v", err)
		}
	})
}

func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"1,234.56", "-1.234,56", "1'234.50", "12 345,67", "(1.00)", "2.00 DR", "−3,00", "1.00-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, nf := range []statements.NumberFormat{statements.FormatUS, statements.FormatEU, statements.FormatCH, statements.FormatFR} {
			a, err := statements.ParseAmount(s, nf)
			if err != nil {
				continue
			}
			if back, err := statements.ParseAmount(statements.FormatAmount(a, nf), nf); err != nil || back != a {
				t.Fatalf("%q read as %v in %+v does not format and read back (%v, %v)", s, a, nf, back, err)
			}
		}
	})
}

// FuzzPDFMeta feeds the PDF information and font readers (pure Go, untrusted bytes).
func FuzzPDFMeta(f *testing.F) {
	tr := fixtures.Series(3, fixtures.Template("thames-uk"), 1, 4)[0]
	clean, err := fixtures.TextPDF(tr)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(clean)
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Producer (a\\(b\\)c) /CreationDate (D:2024) >> endobj\ntrailer << /Root 1 0 R /Info 1 0 R >>\nstartxref\n0\n%%EOF"))
	f.Add([]byte("%PDF-1.7\n3 0 obj << /Length 999 /Filter /FlateDecode >> stream\nxx\nendstream endobj"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := statements.ReadPDFMeta(data)
		if m == nil || m.Revisions < 0 {
			t.Fatal("no metadata")
		}
		statements.TamperSignals([]statements.PDFEvidence{{Meta: m, Data: data, Template: &statements.BuiltinTemplates()[0]}}, nil, nil, nil)
	})
}

// FuzzOrganisationTemplate: an organisation's template arrives as JSON from the API. Any
// body either fails to decode or validate, or is a template the parsers use without panicking.
func FuzzOrganisationTemplate(f *testing.F) {
	for _, tpl := range statements.BuiltinTemplates() {
		b, err := json.Marshal(tpl)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "Date Description Amount\n01.02.2024 COFFEE -3,50")
	}
	f.Add([]byte(`{"id":"x","bank":"B","markers":["B"],"dateLayout":"2006","number":{"decimal":",","thousands":""},"columns":[{"kind":"amount","header":""}]}`), "B")
	f.Add([]byte(`{"number":{"decimal":"","thousands":"."}}`), "")
	f.Fuzz(func(t *testing.T, body []byte, text string) {
		var tpl statements.Template
		if err := json.Unmarshal(body, &tpl); err != nil {
			return
		}
		if statements.ValidateTemplate(tpl) != nil {
			return
		}
		st, err := statements.ParseLines(layoutLines(text, false), &tpl)
		if err != nil {
			if statements.StageOf(err) != statements.StageParse {
				t.Fatalf("error without stage: %v", err)
			}
			return
		}
		checkStatements(t, []*statements.Statement{st})
	})
}

// FuzzCategoryRules: an organisation's rules arrive as JSON from the API; valid ones
// categorise any transaction without panicking.
func FuzzCategoryRules(f *testing.F) {
	f.Add([]byte(`[{"category":"coffee","contains":["espresso bar"],"direction":"debit"}]`), "ESPRESSO BAR 12", int64(-350))
	f.Add([]byte(`[{"category":"x","contains":["é"]}]`), "CAFÉ", int64(1))
	f.Fuzz(func(t *testing.T, body []byte, desc string, amount int64) {
		var rules []statements.CategoryRule
		if json.Unmarshal(body, &rules) != nil || statements.ValidateCategoryRules(rules) != nil {
			return
		}
		txs := []statements.Transaction{{Description: desc, Amount: statements.Amount(amount)}}
		statements.Categorise(txs, rules)
		if txs[0].Category == "" {
			t.Fatalf("no category for %q", desc)
		}
	})
}

// FuzzSniff: the upload's kind detection answers a known kind (with its media type) or
// unknown for any bytes, and reads only the first SniffLen bytes.
func FuzzSniff(f *testing.F) {
	f.Add([]byte("%PDF-1.7\n"))
	f.Add([]byte("OFXHEADER:100\nDATA:OFXSGML\n"))
	f.Add([]byte(`<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">`))
	f.Add([]byte("Date,Amount\n2024-01-02,1.00\n"))
	f.Add([]byte("\x00\x01binary"))
	f.Fuzz(func(t *testing.T, data []byte) {
		k := statements.Sniff(data)
		switch k {
		case statements.KindPDF, statements.KindCSV, statements.KindOFX, statements.KindCAMT:
			if k.MIME() == "" {
				t.Fatalf("kind %s without a media type", k)
			}
		case statements.KindUnknown:
		default:
			t.Fatalf("unknown kind %q", k)
		}
		if len(data) >= statements.SniffLen {
			longer := append(append([]byte{}, data[:statements.SniffLen]...), "trailing bytes, \x00 included"...)
			if got := statements.Sniff(longer); got != k {
				t.Fatalf("bytes after the first %d changed the kind: %s then %s", statements.SniffLen, k, got)
			}
		}
	})
}
