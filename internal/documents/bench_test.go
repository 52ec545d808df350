package documents_test

import (
	"context"
	"testing"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/documents/fixtures"
)

// BenchmarkProcess measures one document through all stages, by kind of input; 60e9 /
// ns/op is documents per minute on one worker. The accuracy report (TestAccuracyReport)
// measures the same over a varied corpus.
func BenchmarkProcess(b *testing.B) {
	e := newEngine(b)
	for _, bc := range []struct {
		name string
		data func(testing.TB) []byte
	}{
		{"text_pdf", fixtures.NPWPTextPDF},
		{"encrypted_pdf", fixtures.NPWPOwnerOnlyPDF},
		{"photo", fixtures.NPWPPhotoPNG},
		{"scan_pdf", fixtures.NPWPScanPDF},
		{"rotated_photo", fixtures.NPWPRotatedPhotoJPEG},
	} {
		data := bc.data(b)
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := e.Process(context.Background(), data, docintel.ProcessOptions{Now: now}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(60/(b.Elapsed().Seconds()/float64(b.N)), "docs/min")
		})
	}
}
