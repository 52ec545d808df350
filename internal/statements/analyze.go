package statements

import "fmt"

// Status is an analysis's outcome.
type Status string

// The outcomes of Decide (password_required and failed come from stage errors).
const (
	StatusCompleted        Status = "completed"
	StatusRequiresReview   Status = "requires_review"
	StatusFailed           Status = "failed"
	StatusPasswordRequired Status = "password_required"
)

// Thresholds of Decide.
const (
	// ReviewRisk is the risk score from which an analysis goes to review.
	ReviewRisk = 40
	// ReviewConfidence is the mean OCR confidence below which an analysis goes to review.
	ReviewConfidence = 0.80
)

// Result is a finished analysis.
type Result struct {
	Status         Status          `json:"status"`
	Reasons        []string        `json:"reasons"`
	Files          []*FileResult   `json:"files"`
	Statements     []*Statement    `json:"statements"`
	Reconciliation *Reconciliation `json:"reconciliation"`
	Insights       *Insights       `json:"insights"`
	Signals        *Signals        `json:"signals"`
}

// Analyze reconciles the statements read from the files, computes the insights (rules:
// the organisation's category rules) and the tamper signals, and decides. data[i] is
// file i's bytes, for the font checks of unencrypted PDFs (nil skips them).
func Analyze(files []*FileResult, data [][]byte, rules []CategoryRule) *Result {
	r := &Result{Files: files, Reasons: []string{}}
	var fileOf []int
	var pdfs []PDFEvidence
	for i, f := range files {
		for _, st := range f.Statements {
			r.Statements = append(r.Statements, st)
			fileOf = append(fileOf, f.File)
		}
		if f.Kind == KindPDF {
			ev := PDFEvidence{File: f.File, Meta: f.Meta, Scanned: f.Scanned}
			if f.Detection != nil {
				ev.Template = TemplateOf(f, nil)
			}
			if i < len(data) {
				ev.Data = data[i]
			}
			pdfs = append(pdfs, ev)
		}
	}
	r.Reconciliation = Reconcile(r.Statements)
	r.Insights = ComputeInsights(r.Statements, rules)
	r.Signals = TamperSignals(pdfs, r.Statements, fileOf, r.Reconciliation)
	r.decide()
	return r
}

// decide sets the status: requires_review when the reconciliation failed, the tamper risk
// reaches ReviewRisk or a file's text was read with low confidence; completed otherwise.
func (r *Result) decide() {
	conf := 1.0
	for _, f := range r.Files {
		conf = min(conf, f.MeanConfidence)
	}
	r.Reasons = []string{}
	r.Status = StatusCompleted
	if !r.Reconciliation.OK {
		r.Reasons = append(r.Reasons, "reconciliation failed")
	}
	if r.Signals.Risk >= ReviewRisk {
		r.Reasons = append(r.Reasons, fmt.Sprintf("tamper risk %d", r.Signals.Risk))
	}
	if conf < ReviewConfidence {
		r.Reasons = append(r.Reasons, fmt.Sprintf("text read with low confidence (%.2f)", conf))
	}
	if len(r.Reasons) > 0 {
		r.Status = StatusRequiresReview
	}
}
