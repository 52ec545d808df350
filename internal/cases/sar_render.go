package cases

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Report is a SAR filing as it is sent to the regulator: the filing, the case it was drafted
// from and the evidence the case links.
type Report struct {
	FilingID     string         `json:"filingId"`
	OrgID        string         `json:"organizationId"`
	CaseID       string         `json:"caseId"`
	Subjects     []string       `json:"subjects"`
	ActivityFrom string         `json:"activityFrom"`
	ActivityTo   string         `json:"activityTo"`
	Amount       float64        `json:"amount"`
	Currency     string         `json:"currency"`
	Narrative    string         `json:"narrative"`
	FiledBy      string         `json:"filedBy"`
	SubmittedBy  string         `json:"submittedBy"`
	SubmittedAt  string         `json:"submittedAt"`
	Evidence     []ReportRecord `json:"evidence"`
	Alerts       []ReportRecord `json:"alerts"`
}

// ReportRecord is one linked record: its kind, id and a line about it.
type ReportRecord struct {
	Kind    string `json:"kind"`
	ID      string `json:"id"`
	Summary string `json:"summary,omitempty"`
}

// RenderJSON is the report as the regulator receives it.
func RenderJSON(r Report) ([]byte, error) {
	if r.Subjects == nil {
		r.Subjects = []string{}
	}
	if r.Evidence == nil {
		r.Evidence = []ReportRecord{}
	}
	if r.Alerts == nil {
		r.Alerts = []ReportRecord{}
	}
	return json.Marshal(r)
}

// RenderPDF is the report as a one-file PDF for the record: a text page per 50 lines in
// Helvetica, written by hand (PDF 1.4, one content stream per page, an exact xref table).
func RenderPDF(r Report) []byte {
	lines := []string{
		"Suspicious Activity Report " + r.FilingID,
		"",
		"Organisation: " + r.OrgID,
		"Case: " + r.CaseID,
		"Subjects: " + strings.Join(r.Subjects, ", "),
		"Activity: " + r.ActivityFrom + " to " + r.ActivityTo,
		fmt.Sprintf("Amount: %.2f %s", r.Amount, r.Currency),
		"Filed by: " + r.FiledBy,
		"Submitted by: " + r.SubmittedBy + " at " + r.SubmittedAt,
		"",
		"Narrative:",
	}
	lines = append(lines, wrap(r.Narrative, 90)...)
	lines = append(lines, "", "Alerts:")
	for _, a := range r.Alerts {
		lines = append(lines, wrap("- "+a.ID+" ("+a.Kind+") "+a.Summary, 90)...)
	}
	lines = append(lines, "", "Evidence:")
	for _, e := range r.Evidence {
		lines = append(lines, wrap("- "+e.Kind+" "+e.ID+" "+e.Summary, 90)...)
	}
	return pdfPages(lines, 50)
}

// wrap splits s into lines of at most width characters at spaces (and at newlines).
func wrap(s string, width int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			for len(w) > width { // a word longer than a line is cut
				if line != "" {
					out, line = append(out, line), ""
				}
				out, w = append(out, w[:width]), w[width:]
			}
			switch {
			case line == "":
				line = w
			case len(line)+1+len(w) <= width:
				line += " " + w
			default:
				out, line = append(out, line), w
			}
		}
		out = append(out, line)
	}
	return out
}

// pdfText escapes s for a PDF literal string; characters outside printable ASCII become '?'
// (the standard Helvetica font has no Unicode mapping).
func pdfText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 32 || r > 126:
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pdfPages writes lines onto A4 pages of perPage lines each.
func pdfPages(lines []string, perPage int) []byte {
	var pages [][]string
	for len(lines) > perPage {
		pages, lines = append(pages, lines[:perPage]), lines[perPage:]
	}
	pages = append(pages, lines)
	// Objects: 1 catalog, 2 pages, 3 font, then a page and its content per page.
	var objs []string
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objs = append(objs, "<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, p := range pages {
		var c strings.Builder
		c.WriteString("BT /F1 10 Tf 14 TL 50 800 Td\n")
		for _, l := range p {
			fmt.Fprintf(&c, "(%s) '\n", pdfText(l))
		}
		c.WriteString("ET")
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", c.Len(), c.String()))
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}
