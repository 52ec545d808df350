package documents

import "bytes"

// Format is a file format detected from the bytes.
type Format string

// The formats the engine reads; FormatUnknown is everything else.
const (
	FormatUnknown Format = ""
	FormatPDF     Format = "pdf"
	FormatPNG     Format = "png"
	FormatJPEG    Format = "jpeg"
	FormatTIFF    Format = "tiff"
)

// MIME returns the media type of a format ("" for FormatUnknown).
func (f Format) MIME() string {
	switch f {
	case FormatPDF:
		return "application/pdf"
	case FormatPNG:
		return "image/png"
	case FormatJPEG:
		return "image/jpeg"
	case FormatTIFF:
		return "image/tiff"
	}
	return ""
}

// IsImage reports whether the format is a raster image.
func (f Format) IsImage() bool { return f == FormatPNG || f == FormatJPEG || f == FormatTIFF }

// SniffLen is how many leading bytes Sniff needs; an upload handler can peek this many
// bytes to answer 415 before storing anything.
const SniffLen = 1024

// Sniff detects the format from the leading bytes of a file (it looks at most at SniffLen
// bytes). A PDF header may be preceded by junk within the first kilobyte, as readers accept.
func Sniff(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return FormatPNG
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return FormatJPEG
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")):
		return FormatTIFF
	}
	if len(head) > SniffLen {
		head = head[:SniffLen]
	}
	if bytes.Contains(head, []byte("%PDF-")) {
		return FormatPDF
	}
	return FormatUnknown
}
