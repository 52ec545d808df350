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
// Message and NeedsPassword on them. It is InspectFile, Text and Parse in one call; the
// statements pipeline runs them as separate stages.
func (r *Reader) ReadFile(ctx context.Context, idx int, data []byte, pw documents.Password, templates []Template, currency string) (*FileResult, error) {
	fr, err := r.InspectFile(ctx, idx, data, pw)
	if err != nil {
		return nil, err
	}
	var text *documents.TextResult
	if fr.Kind == KindPDF {
		if text, err = r.eng.Text(ctx, data, pw); err != nil {
			return nil, err
		}
	}
	if err := Parse(fr, data, text, templates, currency); err != nil {
		return nil, err
	}
	return fr, nil
}

// InspectFile is the inspect stage of one file: its kind from the bytes and, for a PDF,
// whether it opens (with pw), its page count (at most the reader's limit) and its metadata.
// A PDF that needs a (different) password fails with NeedsPassword true.
func (r *Reader) InspectFile(ctx context.Context, idx int, data []byte, pw documents.Password) (*FileResult, error) {
	fr := &FileResult{File: idx, Kind: Sniff(data), MeanConfidence: 1}
	switch fr.Kind {
	case KindUnknown:
		if len(data) == 0 {
			return nil, stageErr(StageInspect, ErrMalformed, "the file is empty", nil)
		}
		return nil, stageErr(StageInspect, ErrNotStatement, "the file is not a PDF, CSV, OFX/QFX or CAMT.053 statement", nil)
	case KindPDF:
		in, err := r.eng.Inspect(ctx, data, pw)
		if err != nil {
			return nil, err
		}
		if in.Pages > r.maxPages {
			return nil, stageErr(StageInspect, ErrTooLarge, fmt.Sprintf("the PDF has %d pages; at most %d are accepted", in.Pages, r.maxPages), nil)
		}
		fr.Pages = in.Pages
		fr.Meta = ReadPDFMeta(data)
	}
	return fr, nil
}

// Text is the text stage of a PDF: its text layer, or OCR of its scanned pages (the
// documents engine).
func (r *Reader) Text(ctx context.Context, data []byte, pw documents.Password) (*documents.TextResult, error) {
	return r.eng.Text(ctx, data, pw)
}

// Parse is the detect and parse stages of an inspected file: a PDF's text (read by Text)
// against the templates, or the bytes of a CSV, OFX/QFX or CAMT.053 file. It fills
// fr.Statements (and, for a PDF, the detection and the text's confidence).
func Parse(fr *FileResult, data []byte, text *documents.TextResult, templates []Template, currency string) error {
	var err error
	switch fr.Kind {
	case KindPDF:
		if text == nil {
			return stageErr(StageText, ErrNotStatement, "the PDF has no text", nil)
		}
		err = parsePDFText(fr, text, templates)
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
		err = stageErr(StageInspect, ErrNotStatement, "the file is not a PDF, CSV, OFX/QFX or CAMT.053 statement", nil)
	}
	return err
}

func parsePDFText(fr *FileResult, text *documents.TextResult, templates []Template) error {
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
		st.Pages = fr.Pages
	}
	fr.Statements = []*Statement{st}
	return nil
}

// TemplateOf finds the detected template of a file result that travelled as JSON (which
// keeps only its id) among templates (nil: the built-ins).
func TemplateOf(fr *FileResult, templates []Template) *Template {
	if fr.Detection == nil {
		return nil
	}
	if fr.Detection.Template != nil {
		return fr.Detection.Template
	}
	if templates == nil {
		templates = BuiltinTemplates()
	}
	for i := range templates {
		if templates[i].ID == fr.Detection.ID {
			return &templates[i]
		}
	}
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
