package documents

import (
	"strings"
	"unicode"
)

// TextSource says where text came from.
type TextSource string

// The text sources.
const (
	SourceTextLayer TextSource = "text_layer"
	SourceOCR       TextSource = "ocr"
	SourceMixed     TextSource = "mixed"
)

// TextLayerConfidence is the word confidence given to text read from a PDF text layer:
// the characters are exact, but the layer could still disagree with what is printed.
const TextLayerConfidence = 0.99

// Word is one word with its recognition confidence (0..1) and horizontal extent (pixels
// for OCR, character columns × 10 for a text layer).
type Word struct {
	Text string  `json:"t"`
	Conf float64 `json:"c"`
	X0   int     `json:"x0"`
	X1   int     `json:"x1"`
	// Gap is true when a wide space separates this word from the previous one on the line
	// (a new column, as between a label column and a value column).
	Gap bool `json:"g,omitempty"`
}

// Line is one visual line of a page.
type Line struct {
	Page   int        `json:"page"`
	Source TextSource `json:"source"`
	Words  []Word     `json:"words"`
}

// Text joins the words with single spaces.
func (l Line) Text() string {
	var b strings.Builder
	for i, w := range l.Words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.Text)
	}
	return b.String()
}

// TextResult is the text of a document: lines of words with confidences.
type TextResult struct {
	Source TextSource `json:"source"`
	// Pages is how many pages were read.
	Pages int `json:"pages"`
	// OCRPages is how many of them were OCR'd.
	OCRPages int `json:"ocrPages"`
	// Rotation is the clockwise rotation in degrees applied to the first OCR'd page
	// (0, 90, 180 or 270): the camera's EXIF orientation plus orientation detection.
	Rotation int    `json:"rotation"`
	Lines    []Line `json:"lines"`
	// MeanConfidence is the mean word confidence (0..1).
	MeanConfidence float64 `json:"meanConfidence"`
}

// String returns the text, one line per line, pages separated by a blank line.
func (t *TextResult) String() string {
	var b strings.Builder
	page := 0
	for i, l := range t.Lines {
		if i > 0 {
			b.WriteByte('\n')
			if l.Page != page {
				b.WriteByte('\n')
			}
		}
		page = l.Page
		b.WriteString(l.Text())
	}
	return b.String()
}

func (t *TextResult) finish() {
	n, sum := 0, 0.0
	for _, l := range t.Lines {
		for _, w := range l.Words {
			sum += w.Conf
			n++
		}
	}
	if n > 0 {
		t.MeanConfidence = sum / float64(n)
	}
}

// textLayerLines splits one page of `pdftotext -layout` output into lines of words; a run
// of three or more spaces marks a column gap.
func textLayerLines(page int, text string) []Line {
	var lines []Line
	for _, raw := range strings.Split(text, "\n") {
		raw = strings.TrimRight(raw, " \r\t")
		var words []Word
		col, spaces := 0, 0
		var cur []rune
		start := 0
		flush := func() {
			if len(cur) > 0 {
				words = append(words, Word{Text: string(cur), Conf: TextLayerConfidence, X0: start * 10, X1: col * 10, Gap: len(words) > 0 && spaces >= 3})
				cur = cur[:0]
			}
		}
		for _, r := range raw {
			if unicode.IsSpace(r) {
				if len(cur) > 0 {
					flush()
					spaces = 0
				}
				spaces++
			} else {
				if len(cur) == 0 {
					start = col
				}
				cur = append(cur, r)
			}
			col++
		}
		flush()
		if len(words) > 0 {
			lines = append(lines, Line{Page: page, Source: SourceTextLayer, Words: words})
		}
	}
	return lines
}

// alnumCount counts letters and digits.
func alnumCount(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}
