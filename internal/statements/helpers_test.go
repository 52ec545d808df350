package statements_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/go-pdf/fpdf"
)

// letterPDF is a one-page business letter: a real PDF with text, but no statement.
func letterPDF(t *testing.T) []byte {
	t.Helper()
	return pdfPages(t, 1, "Dear Ms Example, thank you for your order of garden furniture. It ships next week.")
}

// bigPDF is a PDF of n pages of text.
func bigPDF(t *testing.T, n int) []byte {
	t.Helper()
	return pdfPages(t, n, "Appendix page with enough words to count as a text layer")
}

func pdfPages(t *testing.T, n int, text string) []byte {
	t.Helper()
	p := fpdf.New("P", "mm", "A4", "")
	p.SetFont("Helvetica", "", 11)
	for i := range n {
		p.AddPage()
		p.Text(20, 30, fmt.Sprintf("%s (%d)", text, i+1))
	}
	var b bytes.Buffer
	if err := p.Output(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
