package statements

import (
	"bytes"

	"github.com/svcplatform/svc/internal/documents"
)

// Kind is a statement file's format, detected from its bytes.
type Kind string

// The kinds of statement files.
const (
	KindUnknown Kind = ""
	KindPDF     Kind = "pdf"
	KindCSV     Kind = "csv"
	KindOFX     Kind = "ofx"
	KindCAMT    Kind = "camt053"
)

// MIME returns the media type of a kind.
func (k Kind) MIME() string {
	switch k {
	case KindPDF:
		return "application/pdf"
	case KindCSV:
		return "text/csv"
	case KindOFX:
		return "application/x-ofx"
	case KindCAMT:
		return "application/xml"
	}
	return ""
}

// SniffLen is how many leading bytes Sniff looks at.
const SniffLen = 4096

// Sniff detects the kind of a statement file from its leading bytes: a PDF (as the
// documents engine sniffs it), an OFX/QFX file (SGML header or OFX processing
// instruction), an ISO 20022 camt.053 document, or text that looks like CSV.
func Sniff(head []byte) Kind {
	if len(head) > SniffLen {
		head = head[:SniffLen]
	}
	if documents.Sniff(head) == documents.FormatPDF {
		return KindPDF
	}
	h := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	t := bytes.ToUpper(bytes.TrimSpace(h))
	switch {
	case bytes.HasPrefix(t, []byte("OFXHEADER")), bytes.Contains(t, []byte("<?OFX")), bytes.HasPrefix(t, []byte("<OFX>")):
		return KindOFX
	case bytes.Contains(t, []byte("CAMT.053")), bytes.Contains(t, []byte("<BKTOCSTMRSTMT")):
		return KindCAMT
	}
	if looksText(h) && (bytes.ContainsAny(h, ",;\t|")) && bytes.Contains(h, []byte("\n")) {
		return KindCSV
	}
	return KindUnknown
}

// looksText reports whether b is text (no NUL, few control characters).
func looksText(b []byte) bool {
	if len(b) == 0 || bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	ctl := 0
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			ctl++
		}
	}
	return ctl*100 < len(b)
}
