package identity

import (
	"slices"

	"github.com/svcplatform/svc/internal/documents"
)

// MinMeanConfidence is the mean OCR word confidence below which a page is too poorly read
// to verify without a person looking.
const MinMeanConfidence = 0.6

// qualityCheck: the page was read with enough confidence, and so were the fields this
// verification compares (a field a validator rejected is judged by its own check instead).
// Fields that are not compared do not count. Nationality does not either: its check accepts
// only an exact code (IDN, WNI), which a poor read seldom produces, and its short word is
// often read with low confidence (a passport's nationality shares no check digit).
type qualityCheck struct{}

func (qualityCheck) Type() CheckType { return CheckQuality }

func (qualityCheck) Run(in *Input) CheckResult {
	var reasons []string
	if in.Document.MeanConfidence < MinMeanConfidence {
		reasons = append(reasons, ReasonLowOCRConfidence)
	}
	for _, name := range comparedFields(in) {
		f, ok := in.Document.Fields[name]
		if ok && (f.Valid == nil || *f.Valid) && f.Confidence < documents.DefaultThreshold {
			reasons = append(reasons, ReasonLowFieldConfidence)
			break
		}
	}
	if len(reasons) > 0 {
		return failed(CheckQuality, reasons...)
	}
	return passed(CheckQuality)
}

// comparedFields are the engine's names of the fields the checks compare or judge.
func comparedFields(in *Input) []string {
	switch in.Document.Type {
	case documents.TypePassport:
		return []string{"surname", "given_names", "birth_date", "document_number", "expiry_date"}
	case documents.TypeKTP:
		return []string{"name", "birth_date", "nik"}
	}
	return nil
}

// tamperFlags maps the engine's cross-check flags to reason codes: two reads of the same
// fact on the document that disagree (the MRZ name and the printed name; the NIK's encoded
// birth date, gender and province and the printed ones).
var tamperFlags = []struct{ flag, reason string }{
	{"mrz_name_mismatch", ReasonMRZVisualMismatch},
	{"nik_birth_date_mismatch", ReasonNIKBirthDateMismatch},
	{"nik_gender_mismatch", ReasonNIKGenderMismatch},
	{"nik_province_mismatch", ReasonNIKProvinceMismatch},
}

// tamperCheck: the document's internal cross-checks agree.
type tamperCheck struct{}

func (tamperCheck) Type() CheckType { return CheckTamper }

func (tamperCheck) Run(in *Input) CheckResult {
	var reasons []string
	for _, t := range tamperFlags {
		if slices.Contains(in.Document.Flags, t.flag) {
			reasons = append(reasons, t.reason)
		}
	}
	if len(reasons) > 0 {
		return failed(CheckTamper, reasons...)
	}
	return passed(CheckTamper)
}

// screeningCheck: when the policy requires it, the person was screened and nothing matched.
type screeningCheck struct{}

func (screeningCheck) Type() CheckType { return CheckScreening }

func (screeningCheck) Run(in *Input) CheckResult {
	s := in.Screening
	switch {
	case !in.Policy.RequireScreening:
		return notApplicable(CheckScreening, ReasonNotRequired)
	case s == nil || s.Error != "":
		return failed(CheckScreening, ReasonScreeningUnavailable)
	}
	r := passed(CheckScreening)
	if s.Matches > 0 {
		r = failed(CheckScreening, ReasonScreeningMatch)
	}
	r.ScreeningID = s.ScreeningID
	return r
}
