// Package docintel is the document intelligence engine: it inspects an uploaded file,
// reads its text (PDF text layer or OCR), classifies it, extracts typed fields and decides
// whether the extraction can be trusted.
//
// Each stage is a plain function with a typed result so that a Temporal activity can wrap
// it one to one:
//
//	Inspect  (*Engine).Inspect   format, pages, encryption; ErrPasswordRequired, ErrCorrupt, ErrUnsupported
//	Text     (*Engine).Text      text layer or tesseract OCR, with word confidences
//	Classify Classify            built-in types and custom templates, scored
//	Extract  Extract             fields of npwp, ktp, passport or a template, with evidence
//	Decide   Decide              field and document confidence, flags, extracted or requires_review
//
// Inspect and Text run external programs (qpdf, poppler-utils, tesseract; see APT_PACKAGES),
// always with a context, a timeout and OMP_THREAD_LIMIT=1. A PDF password is handed to qpdf on
// standard input, never on a command line.
package docintel
