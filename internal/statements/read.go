package statements

import (
	"context"
	"errors"
	"fmt"

	"github.com/svcplatform/svc/internal/documents"
)

// DefaultMaxPages is how many pages a statement PDF may have.
const DefaultMaxPages = 60

// Reader turns one uploaded file into statements. PDFs go through the documents engine
// (qpdf for structure and passwords, pdftotext -layout, tesseract for scanned pages).
type Reader struct {
	eng      *documents.Engine
	maxPages int
}

// NewReader returns a Reader over a documents engine configured with cfg; cfg.MaxPages
// (default DefaultMaxPages) is also the page limit above which a PDF is refused.
func NewReader(cfg documents.Config) *Reader {
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = DefaultMaxPages
	}
	return &Reader{eng: documents.NewEngine(cfg), maxPages: cfg.MaxPages}
}

// Engine returns the documents engine the reader uses (for CheckTools at start-up).
func (r *Reader) Engine() *documents.Engine { return r.eng }

// FileResult is what was read from one file.
type FileResult struct {
	File       int          `json:"file"`
	Kind       Kind         `json:"kind"`
	Pages      int          `json:"pages,omitempty"`
	Detection  *Detection   `json:"detection,omitempty"`
	Meta       *PDFMeta     `json:"pdf,omitempty"`
	Scanned    bool         `json:"scanned,omitempty"`
	Statements []*Statement `json:"statements"`
	// MeanConfidence is the text's mean word confidence (1 for machine-readable files).
	MeanConfidence float64 `json:"meanConfidence"`
}

// ReadFile reads file number idx: its kind from the bytes, then the matching parser.
// templates are the organisation's templates followed by BuiltinTemplates (nil: built-ins).
// currency is the CSV fallback currency. Errors are *documents.Error; use StageOf,
// Message and NeedsPassword on them.
func (r *Reader) ReadFile(ctx context.Context, idx int, data []byte, pw documents.Password, templates []Template, currency string) (*FileResult, error) {
	fr := &FileResult{File: idx, Kind: Sniff(data), MeanConfidence: 1}
	var err error
	switch fr.Kind {
	case KindPDF:
		err = r.readPDF(ctx, data, pw, templates, fr)
	case KindCSV:
		var st *Statement
		if st, err = ParseCSV(data, currency); err == nil {
			fr.Statements = []*Statement{st}
		}
	case KindOFX:
		fr.Statements, err = ParseOFX(data)
	case KindCAMT:
		fr.Statements, err = ParseCAMT(data)
	default:
		if len(data) == 0 {
			return nil, stageErr(StageInspect, ErrMalformed, "the file is empty", nil)
		}
		return nil, stageErr(StageInspect, ErrNotStatement, "the file is not a PDF, CSV, OFX/QFX or CAMT.053 statement", nil)
	}
	if err != nil {
		return nil, err
	}
	return fr, nil
}

func (r *Reader) readPDF(ctx context.Context, data []byte, pw documents.Password, templates []Template, fr *FileResult) error {
	in, err := r.eng.Inspect(ctx, data, pw)
	if err != nil {
		return err
	}
	if in.Pages > r.maxPages {
		return stageErr(StageInspect, ErrTooLarge, fmt.Sprintf("the PDF has %d pages; at most %d are accepted", in.Pages, r.maxPages), nil)
	}
	fr.Pages = in.Pages
	fr.Meta = ReadPDFMeta(data)
	text, err := r.eng.Text(ctx, data, pw)
	if err != nil {
		return err
	}
	fr.Scanned = text.OCRPages > 0
	fr.MeanConfidence = text.MeanConfidence
	if templates == nil {
		templates = BuiltinTemplates()
	}
	det, err := Detect(text.String(), fr.Meta, templates)
	if err != nil {
		return err
	}
	fr.Detection = det
	st, err := ParseLines(text.Lines, det.Template)
	if err != nil {
		return err
	}
	if st.Pages == 0 {
		st.Pages = in.Pages
	}
	fr.Statements = []*Statement{st}
	return nil
}

// StageOf returns the stage an error happened in, or "" for other errors.
func StageOf(err error) Stage { return documents.StageOf(err) }

// Message returns the message safe to show for err (analysis.failed's errorMessage).
func Message(err error) string {
	if StageOf(err) == "" {
		return "the statement could not be processed"
	}
	return documents.Message(err)
}

// NeedsPassword reports whether err means the PDF needs a (different) password.
func NeedsPassword(err error) bool { return errors.Is(err, documents.ErrPasswordRequired) }

// IsPermanent reports whether retrying the same input cannot help (everything but a tool failure).
func IsPermanent(err error) bool { return documents.IsPermanent(err) }
