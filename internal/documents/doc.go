// Package documents is the document intelligence engine: it inspects an uploaded file,
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
// Every stage error is an *Error carrying the Stage (document.failed's "stage"), a Msg safe
// to show (Message), and a Kind to test with errors.Is. IsPermanent tells an activity not to
// retry (corrupt, unsupported, wrong password, unknown type); ErrTool (a tool missing,
// crashed or timed out) is worth retrying.
//
// Inspect and Text run external programs (qpdf, poppler-utils, tesseract; the Debian
// packages are listed in APT_PACKAGES), always with a context, a per-run timeout
// (Config.ToolTimeout), a fixed environment with OMP_THREAD_LIMIT=1, capped output, in a
// private 0700 temporary directory that is removed afterwards. Security notes:
//   - A PDF password is handed to qpdf on standard input (--password-file=-), never on a
//     command line (readable by every local user in /proc). Encrypted PDFs are decrypted
//     by qpdf into the private directory, so poppler never needs the password. Password is
//     a type that prints and logs as "[redacted]" and refuses to marshal.
//   - Images are decoded by Go (with a pixel limit against decompression bombs and a panic
//     guard) and re-encoded before tesseract sees them: tesseract never parses an uploaded
//     file. PDFs are parsed by qpdf and poppler in separate processes, bounded in time,
//     output and rendered size.
//
// OCR is CPU-bound and single-threaded per document: run about one Text activity per core
// (the worker's documents task queue), with a start-to-close timeout of a few minutes
// (a five-page degraded scan can need four tesseract runs per page).
package documents
