package documents

import (
	"slices"
	"strings"
	"unicode"
)

// LabelMatch says how a field's value was located; Decide weighs it.
type LabelMatch string

// How a value was located.
const (
	// LabelExact: the printed label was read exactly.
	LabelExact LabelMatch = "exact"
	// LabelFuzzy: the label was read with an OCR error or two.
	LabelFuzzy LabelMatch = "fuzzy"
	// LabelPattern: no label; the value was recognised by its shape (a number pattern).
	LabelPattern LabelMatch = "pattern"
	// LabelPosition: no label; the value was inferred from the card's layout.
	LabelPosition LabelMatch = "position"
	// LabelMRZ: read from a machine readable zone.
	LabelMRZ LabelMatch = "mrz"
	// LabelMissing: the field was not found.
	LabelMissing LabelMatch = "missing"
)

// normToken upper-cases a word and strips surrounding punctuation, for label comparison.
func normToken(s string) string {
	return strings.ToUpper(strings.TrimFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
}

// labelTokens splits a label into comparable tokens ("Tempat/Tgl Lahir" → TEMPAT TGL LAHIR).
func labelTokens(label string) []string {
	return strings.FieldsFunc(strings.ToUpper(label), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// wordTokens splits a line's words into tokens the same way, remembering which word each
// token came from.
func wordTokens(words []Word) (toks []string, owner []int) {
	for i, w := range words {
		for _, t := range labelTokens(w.Text) {
			toks = append(toks, t)
			owner = append(owner, i)
		}
	}
	return toks, owner
}

// editDistance is the Levenshtein distance between two strings of bytes.
func editDistance(a, b string) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// tokenMatch compares an OCR'd token with a label token: exact, fuzzy (an edit or two,
// depending on length) or not at all.
func tokenMatch(got, want string) (exact, ok bool) {
	if got == want {
		return true, true
	}
	got, want = ocrCanon.Replace(got), ocrCanon.Replace(want)
	if got == want {
		return false, true
	}
	allowed := 0
	switch {
	case len(want) >= 8:
		allowed = 2
	case len(want) >= 4:
		allowed = 1
	}
	return false, allowed > 0 && abs(len(got)-len(want)) <= allowed && editDistance(got, want) <= allowed
}

// ocrCanon folds the character confusions OCR makes in printed labels ("rn" read for
// "m", "vv" for "w", digits for look-alike letters) before labels are compared.
var ocrCanon = strings.NewReplacer("RN", "M", "VV", "W", "0", "O", "1", "I", "5", "S", "8", "B")

// labelHit is where a label was found on a line.
type labelHit struct {
	line  int
	end   int // index of the first word after the label
	match LabelMatch
}

// findLabel finds the first line, from line `from` on, holding the label's tokens in a row
// (each read exactly or within an edit or two). When anchored, the label must start the
// line or a column (the word after a gap).
func findLabel(lines []Line, from int, label string, anchored bool) (labelHit, bool) {
	want := labelTokens(label)
	if len(want) == 0 {
		return labelHit{}, false
	}
	for li := max(from, 0); li < len(lines); li++ {
		words := lines[li].Words
		toks, owner := wordTokens(words)
		for start := 0; start+len(want) <= len(toks); start++ {
			if anchored {
				wordStart := start == 0 || owner[start] != owner[start-1]
				column := owner[start] == 0 || words[owner[start]].Gap
				if !wordStart || !column {
					continue
				}
			}
			if exact, ok := tokensMatch(toks[start:start+len(want)], want); ok {
				m := LabelFuzzy
				if exact {
					m = LabelExact
				}
				return labelHit{line: li, end: owner[start+len(want)-1] + 1, match: m}, true
			}
		}
	}
	return labelHit{}, false
}

// tokensMatch compares token runs of equal length.
func tokensMatch(got, want []string) (exact, ok bool) {
	exact = true
	for k, w := range want {
		e, m := tokenMatch(got[k], w)
		if !m {
			return false, false
		}
		exact = exact && e
	}
	return exact, true
}

// isSeparator reports whether a word is only the punctuation between a label and its
// value (":", ";", "=", "-" as OCR reads a colon).
func isSeparator(s string) bool {
	return strings.Trim(s, ":;=.-_|>") == ""
}

// valueAfter returns the words that follow a label on its line: separators are skipped,
// a leading ":" glued to the value is removed, and the value ends at a column gap or at
// any of the stop labels (another field printed on the same line).
func valueAfter(line Line, end int, stops []string) []Word {
	words := line.Words[end:]
	for len(words) > 0 && isSeparator(words[0].Text) {
		words = words[1:]
	}
	if len(words) == 0 {
		return nil
	}
	out := make([]Word, 0, len(words))
	for i, w := range words {
		if i > 0 && w.Gap {
			break
		}
		if i > 0 && startsLabel(words[i:], stops) {
			break
		}
		if i == 0 {
			w.Text = strings.TrimLeft(w.Text, ":;=")
			if w.Text == "" {
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

// startsLabel reports whether the words begin with one of the labels.
func startsLabel(words []Word, labels []string) bool {
	toks, _ := wordTokens(words)
	for _, l := range labels {
		if want := labelTokens(l); len(want) > 0 && len(toks) >= len(want) {
			if _, ok := tokensMatch(toks[:len(want)], want); ok {
				return true
			}
		}
	}
	return false
}

// wordsText joins words with single spaces.
func wordsText(words []Word) string {
	return Line{Words: words}.Text()
}

// minConf is the value's OCR confidence: the lowest word confidence (one misread word
// spoils a value), ignoring punctuation-only words. For values of four or more words it
// is the mean of the two lowest, because tesseract's confidence in a single short token
// ("10", "RT") is noisy; a garbled word still pulls the value well below the threshold.
func minConf(words []Word) float64 {
	var confs []float64
	for _, w := range words {
		if !isSeparator(w.Text) {
			confs = append(confs, w.Conf)
		}
	}
	switch len(confs) {
	case 0:
		return 0
	case 1, 2, 3:
		return slices.Min(confs)
	}
	slices.Sort(confs)
	return (confs[0] + confs[1]) / 2
}

// phraseQuality looks for a phrase in the text: 1 when read exactly, 0.8 with OCR errors,
// 0 when absent.
func phraseQuality(lines []Line, phrase string) float64 {
	if h, ok := findLabel(lines, 0, phrase, false); ok {
		if h.match == LabelExact {
			return 1
		}
		return 0.8
	}
	return 0
}
