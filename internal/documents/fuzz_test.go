package documents_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/documents/fixtures"
)

// FuzzInspect feeds arbitrary bytes to format sniffing and Inspect: the result is an
// inspection or a stage error of the inspect stage, never a panic.
func FuzzInspect(f *testing.F) {
	pdf := fixtures.NPWPTextPDF(f)
	tiff := fixtures.NPWPTIFF(f)
	for _, seed := range [][]byte{
		pdf, pdf[:len(pdf)/3], fixtures.TruncatedPDF(f), fixtures.NotADocument(f),
		tiff[:200], tiff,
		[]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01\x00\x00\x00\x01\x00\x00\x08\x02"), // a huge declared canvas
		[]byte("\xff\xd8\xff\xe0\x00\x10JFIF"),
		[]byte("II*\x00\x08\x00\x00\x00\xff\xff"),
		[]byte("junk before %PDF-1.4\n1 0 obj<<>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF"),
		[]byte("%PDF-1.7\n%%EOF"),
		{},
	} {
		f.Add(seed)
	}
	e := docintel.NewEngine(docintel.Config{})
	f.Fuzz(func(t *testing.T, data []byte) {
		format := docintel.Sniff(data)
		in, err := e.Inspect(context.Background(), data, "")
		if err != nil {
			var se *docintel.Error
			if !errors.As(err, &se) || se.Stage != docintel.StageInspect || se.Msg == "" {
				t.Fatalf("error %v is not an inspect stage error", err)
			}
			if format == docintel.FormatUnknown && !errors.Is(err, docintel.ErrUnsupported) {
				t.Fatalf("unknown format gave %v", err)
			}
			return
		}
		if in.Format != format || in.Format == docintel.FormatUnknown || in.Pages < 1 {
			t.Fatalf("inspection %+v for sniffed format %q", in, format)
		}
	})
}

// FuzzSniff checks that sniffing never panics and only looks at the first kilobyte.
func FuzzSniff(f *testing.F) {
	f.Add([]byte("%PDF-1.4"))
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Add([]byte("MM\x00*"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := docintel.Sniff(data)
		if len(data) > docintel.SniffLen {
			if head := docintel.Sniff(data[:docintel.SniffLen]); head != got {
				t.Fatalf("Sniff looked past SniffLen: %q vs %q", got, head)
			}
		}
		if got != docintel.FormatUnknown && got.MIME() == "" {
			t.Fatalf("format %q has no MIME type", got)
		}
	})
}

// FuzzIdentifiers runs the identifier parsers on arbitrary strings.
func FuzzIdentifiers(f *testing.F) {
	for _, s := range []string{"09.254.294.3-407.000", "3174054506900003", "0092542943407000", "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10", "", "«»"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := docintel.ParseNPWP(s, now); err == nil {
			if got := n.Canonical(); got == "" {
				t.Fatalf("valid NPWP %q has no canonical form", s)
			}
		}
		if n, err := docintel.ParseNIK(s, now); err == nil && n.BirthDate.After(now) {
			t.Fatalf("NIK %q decodes to a future birth date", s)
		}
		l1, l2, _ := strings.Cut(s, "\n")
		_, _ = docintel.ParseTD3(l1, l2, now)
		_, _ = docintel.MRZCheckDigit(s)
		_ = docintel.LuhnValid(s)
	})
}

// FuzzExtract runs classification, every extractor and Decide on arbitrary text.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"NPWP : 09.254.294.3-407.000\nNama : BUDI\nAlamat : JL. X",
		"NIK : 3174054506900003\nTempat/Tgl Lahir : JAKARTA, 05-06-1990\nJenis Kelamin : PEREMPUAN",
		"Full Name\nBUDI\nP<IDNSANTOSO<<BUDI<<<<<<<<<<<<<<<<<<<<<<<<<<\nC4821937<2IDN8503127M3308213<<<<<<<<<<<<<<<2",
		"Nama\n\n:   :\n,,,",
	} {
		f.Add(s)
	}
	tmpl := []docintel.Template{invoiceTemplate()}
	f.Fuzz(func(t *testing.T, s string) {
		text := textOf(0.9, strings.Split(s, "\n")...)
		c := docintel.Classify(text, tmpl)
		if c.Confidence < 0 || c.Confidence > 1 {
			t.Fatalf("classification confidence %v", c.Confidence)
		}
		for _, typ := range []string{"npwp", "ktp", "passport", "unknown"} {
			x, err := docintel.Extract(text, typ, nil, docintel.ExtractOptions{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			d := docintel.Decide(x, 0.8)
			if d.ConfidenceScore < 0 || d.ConfidenceScore > 1 || (d.Status == docintel.StatusRequiresReview) == (d.ConfidenceScore >= 0.8 && len(d.Flags) == 0) {
				t.Fatalf("decision %+v", d)
			}
		}
		tm := tmpl[0]
		if _, err := docintel.Extract(text, tm.Type, &tm, docintel.ExtractOptions{Now: now}); err != nil {
			t.Fatal(err)
		}
	})
}
