package documents

import (
	"context"
	"time"
)

// ProcessOptions are the inputs of Process besides the file.
type ProcessOptions struct {
	Password Password
	// TypeHint skips classification: a built-in type or a template's Type.
	TypeHint string
	// Templates are the organisation's custom templates.
	Templates []Template
	// Threshold is the organisation's confidence threshold; 0 means DefaultThreshold.
	Threshold float64
	// Now is the reference date (see ExtractOptions); zero means time.Now().
	Now time.Time
}

// Result holds every stage's output.
type Result struct {
	Inspection *Inspection `json:"inspection"`
	Text       *TextResult `json:"text"`
	// Classification is nil when a type hint was given.
	Classification *Classification `json:"classification,omitempty"`
	Extraction     *Extraction     `json:"extraction"`
	Decision       *Decision       `json:"decision"`
}

// Process runs all stages in order: Inspect, Text, Classify (unless hinted), Extract,
// Decide. It is what the document workflow does activity by activity, for callers that
// need no durability (tests, benchmarks, a CLI). The error is the first stage's error;
// the Result holds the stages that finished.
func (e *Engine) Process(ctx context.Context, data []byte, opts ProcessOptions) (*Result, error) {
	r := &Result{}
	var err error
	if r.Inspection, err = e.Inspect(ctx, data, opts.Password); err != nil {
		return r, err
	}
	if r.Text, err = e.Text(ctx, data, opts.Password); err != nil {
		return r, err
	}
	docType, tmpl := opts.TypeHint, TemplateFor(opts.TypeHint, opts.Templates)
	if docType == "" {
		c := Classify(r.Text, opts.Templates)
		r.Classification = &c
		docType, tmpl = c.Type, TemplateByID(c.TemplateID, opts.Templates)
	}
	if r.Extraction, err = Extract(r.Text, docType, tmpl, ExtractOptions{Now: opts.Now}); err != nil {
		return r, err
	}
	threshold := opts.Threshold
	if threshold <= 0 {
		threshold = DefaultThreshold
	}
	r.Decision = Decide(r.Extraction, threshold)
	return r, nil
}

// TemplateFor returns the template whose Type is docType, or nil.
func TemplateFor(docType string, templates []Template) *Template {
	for i := range templates {
		if docType != "" && templates[i].Type == docType {
			return &templates[i]
		}
	}
	return nil
}

// TemplateByID returns the template with the given ID, or nil.
func TemplateByID(id string, templates []Template) *Template {
	for i := range templates {
		if id != "" && templates[i].ID == id {
			return &templates[i]
		}
	}
	return nil
}
