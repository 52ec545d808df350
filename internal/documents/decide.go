package documents

import "sort"

// Status is the outcome of Decide, and more widely a document's state (lifecycle.go).
type Status string

// The outcomes of Decide (SPEC 3.2: document.extracted, document.requires_review).
const (
	StatusExtracted      Status = "extracted"
	StatusRequiresReview Status = "requires_review"
)

// DefaultThreshold is the confidence at or above which an extraction is trusted without
// review (the organisation's threshold overrides it).
const DefaultThreshold = 0.80

// Label weights: how much the way a value was found is trusted.
var labelWeight = map[LabelMatch]float64{
	LabelExact:    1.0,
	LabelMRZ:      1.0,
	LabelFuzzy:    0.92,
	LabelPattern:  0.9,
	LabelPosition: 0.85,
	LabelMissing:  0,
}

// Confidence bounds applied by validators.
const (
	// FailedCheckCap caps a field whose validator failed (a wrong check digit, an
	// impossible date, a NIK that disagrees with the printed birth date).
	FailedCheckCap = 0.3
	// repairedWeight discounts a value whose characters had to be corrected.
	repairedWeight = 0.9
)

// validatorStrength is how much of the remaining doubt a passing check removes: check
// digits and two independent reads that agree are strong; a plausible format is weak.
var validatorStrength = map[string]float64{
	"mrz":            0.9,  // an ICAO check digit over the value
	"mrz_line":       0.75, // no own check digit, but all five checks of its MRZ line passed
	"visual_zone":    0.8,  // the MRZ name equals the printed name
	"nik_crosscheck": 0.9,  // the NIK's encoded birth date equals the printed one
	"npwp":           0.4,  // Luhn covers 9 of the 15 digits; office and branch are unchecked
	"nik":            0.5,  // region, date and serial are plausible
	"luhn":           0.7,
	"date":           0.15, // a misread digit usually still makes a date
	"gender":         0.3,
	"rt_rw":          0.2,
	"numeric":        0.1,
}

// Decision is the result of Decide.
type Decision struct {
	Status Status `json:"status"`
	// ConfidenceScore is the lowest confidence among the required fields.
	ConfidenceScore float64 `json:"confidenceScore"`
	// Fields are the extraction's fields with Confidence set.
	Fields map[string]Field `json:"fields"`
	// Flags explain a review: "<field>:<problem>" for failed checks,
	// "missing:<field>", "low_confidence:<field>", and the extraction's own flags.
	Flags []string `json:"flags"`
}

// Values returns the field values keyed by field name (found fields only), the shape of
// document.extracted's "fields".
func (d *Decision) Values() map[string]string {
	out := make(map[string]string, len(d.Fields))
	for name, f := range d.Fields {
		if f.Label != LabelMissing {
			out[name] = f.Value
		}
	}
	return out
}

// FieldConfidence combines a field's evidence into a confidence: the OCR word confidence
// (TextLayerConfidence for a text layer) times the weight of how its label was found,
// discounted when characters were repaired; a passing validator removes part of the
// remaining doubt (validatorStrength), a failing one caps it at FailedCheckCap.
func FieldConfidence(f Field) float64 {
	c := f.OCRConfidence * labelWeight[f.Label]
	if f.Repaired {
		c *= repairedWeight
	}
	if f.Valid != nil {
		if *f.Valid {
			c = 1 - (1-c)*(1-validatorStrength[f.Validator])
		} else {
			c = min(c, FailedCheckCap)
		}
	}
	return round3(clamp(c, 0, 1))
}

// Decide computes every field's confidence and the document's: the lowest required
// field's (all fields' when none is required; 0 when there are none). The document is
// extracted when that score is at or above threshold and nothing was flagged; otherwise
// it requires review, with flags saying why.
func Decide(x *Extraction, threshold float64) *Decision {
	d := &Decision{Fields: map[string]Field{}, Flags: append([]string{}, x.Flags...)}
	names := make([]string, 0, len(x.Fields))
	for name := range x.Fields {
		names = append(names, name)
	}
	sort.Strings(names)
	anyReq := false
	for _, name := range names {
		anyReq = anyReq || x.Fields[name].Required
	}
	score, counted := 1.0, 0
	for _, name := range names {
		f := x.Fields[name]
		f.Confidence = FieldConfidence(f)
		d.Fields[name] = f
		switch {
		case f.Label == LabelMissing && f.Required:
			d.Flags = append(d.Flags, "missing:"+name)
		case f.Valid != nil && !*f.Valid:
			d.Flags = append(d.Flags, name+":"+f.Problem)
		case f.Required && f.Confidence < threshold:
			d.Flags = append(d.Flags, "low_confidence:"+name)
		}
		if f.Required || !anyReq {
			score = min(score, f.Confidence)
			counted++
		}
	}
	if counted == 0 {
		score = 0
		d.Flags = append(d.Flags, "no_fields")
	}
	d.ConfidenceScore = round3(score)
	d.Status = StatusRequiresReview
	if d.ConfidenceScore >= threshold && len(d.Flags) == 0 {
		d.Status = StatusExtracted
	}
	return d
}
