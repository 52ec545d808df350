package statements

import (
	"strings"
)

// Detection is the template chosen for a document and why.
type Detection struct {
	Template *Template `json:"-"`
	ID       string    `json:"template"`
	Bank     string    `json:"bank"`
	// Score is 0..1: text markers and table headers weigh most, the PDF producer confirms.
	Score float64 `json:"score"`
	// ByMetadata is true when the PDF Producer or Creator named the bank's system.
	ByMetadata bool `json:"byMetadata"`
	// ByText lists the printed markers and headers that matched.
	ByText []string `json:"byText"`
}

// minDetectScore is the score below which no template is chosen.
const minDetectScore = 0.5

// Detect picks the template whose markers, table headers and producer best match the
// document. text is the document's text (all pages); meta may be nil (not a PDF). It
// returns ErrNotStatement at stage detect when nothing matches well enough.
func Detect(text string, meta *PDFMeta, templates []Template) (*Detection, error) {
	ft := fold(text)
	var best *Detection
	for i := range templates {
		t := &templates[i]
		d := &Detection{Template: t, ID: t.ID, Bank: t.Bank}
		markers := 0.0
		for _, m := range t.Markers {
			if strings.Contains(ft, fold(m)) {
				markers = 1
				d.ByText = append(d.ByText, m)
			}
		}
		headers := 0
		for _, c := range t.Columns {
			if strings.Contains(ft, fold(c.Header)) {
				headers++
			}
		}
		if headers == len(t.Columns) {
			d.ByText = append(d.ByText, "table header")
		}
		d.Score = 0.45*markers + 0.35*float64(headers)/float64(len(t.Columns))
		if meta != nil && producerMatches(meta, t) {
			d.ByMetadata = true
			d.Score += 0.2
		}
		if best == nil || d.Score > best.Score {
			best = d
		}
	}
	if best == nil || best.Score < minDetectScore {
		return nil, stageErr(StageDetect, ErrNotStatement, "no bank statement layout was recognised", nil)
	}
	return best, nil
}

func producerMatches(meta *PDFMeta, t *Template) bool {
	for _, p := range t.Producers {
		lp := strings.ToLower(p)
		if strings.Contains(strings.ToLower(meta.Producer), lp) || strings.Contains(strings.ToLower(meta.Creator), lp) {
			return true
		}
	}
	return false
}
