// Package statementsengine measures the bank statement engine alone (no HTTP, no Temporal):
// statement pages per minute read, parsed, reconciled, analysed and checked for tampering,
// for text PDFs and for scanned PDFs, beside the baseline of the documents engine only
// reading the text of the same files in the same run, and their ratio (the statement
// stages' overhead over text extraction).
//
//	go test ./bench/statementsengine/ -run '^$' -bench . -benchtime 6x
package statementsengine

import (
	"context"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/internal/statements/fixtures"
)

type sample struct {
	data  []byte
	pages int
}

func samples(b *testing.B, scan bool) []sample {
	b.Helper()
	var out []sample
	for i, id := range fixtures.TemplateIDs {
		tr := fixtures.Series(uint64(40+i), fixtures.Template(id), 1, 40)[0]
		var data []byte
		var err error
		if scan {
			data, err = fixtures.ScanPDF(tr, uint64(i))
		} else {
			data, err = fixtures.TextPDF(tr)
		}
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, sample{data: data, pages: len(fixtures.Pages(tr))})
	}
	return out
}

func bench(b *testing.B, scan bool) {
	r := statements.NewReader(documents.Config{})
	e := r.Engine()
	ctx := context.Background()
	if err := e.CheckTools(ctx); err != nil {
		b.Fatal(err)
	}
	ss := samples(b, scan)
	var pages int
	var engine, baseline time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		s := ss[i%len(ss)]
		pages += s.pages
		start := time.Now()
		fr, err := r.ReadFile(ctx, 0, s.data, "", nil, "")
		if err != nil {
			b.Fatal(err)
		}
		res := statements.Analyze([]*statements.FileResult{fr}, [][]byte{s.data}, nil)
		if res.Status == statements.StatusFailed || len(res.Statements[0].Transactions) == 0 {
			b.Fatalf("no transactions read")
		}
		engine += time.Since(start)
		start = time.Now()
		if _, err := e.Text(ctx, s.data, ""); err != nil {
			b.Fatal(err)
		}
		baseline += time.Since(start)
	}
	perMin := float64(pages) / engine.Minutes()
	basePerMin := float64(pages) / baseline.Minutes()
	b.ReportMetric(perMin, "pages/min")
	b.ReportMetric(basePerMin, "text-only-pages/min")
	b.ReportMetric(engine.Seconds()/baseline.Seconds(), "statements/text")
}

// BenchmarkStatementPagesText: multi-page statements with a text layer, the five layouts in turn.
func BenchmarkStatementPagesText(b *testing.B) { bench(b, false) }

// BenchmarkStatementPagesScanned: the same statements scanned at 300 dpi (OCR on every page).
func BenchmarkStatementPagesScanned(b *testing.B) { bench(b, true) }
