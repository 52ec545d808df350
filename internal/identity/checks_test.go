package identity_test

import (
	"slices"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/identity"
)

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// ktpDoc is a well-read KTP of Siti Rahayu, born 5 June 1990, valid for life.
func ktpDoc() identity.Document {
	return identity.Document{Readable: true, Type: "ktp", MeanConfidence: 0.95, Words: 60, Fields: map[string]identity.DocumentField{
		"name":        {Value: "SITI RAHAYU", Confidence: 0.95},
		"birth_date":  {Value: "1990-06-05", Confidence: 0.99, Valid: yes()},
		"nik":         {Value: "3174054506900003", Confidence: 0.99, Valid: yes()},
		"nationality": {Value: "WNI", Confidence: 0.9},
		"valid_until": {Value: "SEUMUR HIDUP", Confidence: 0.9},
	}}
}

func TestChecksAndDecision(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	claim := identity.Claimed{FullName: "Siti Rahayu", BirthDate: "1990-06-05"}
	policy := identity.Policy{DocumentTypes: []string{"ktp"}, MinimumAge: 18, MaxAttempts: 2}
	cases := []struct {
		name    string
		edit    func(*identity.Input)
		attempt int
		status  identity.Status
		reasons []string
	}{
		{"all passed", nil, 1, identity.StatusVerified, nil},
		{"expires today is still valid", func(in *identity.Input) { setField(in, "valid_until", "23-11-2026") }, 1, identity.StatusVerified, nil},
		{"expired yesterday", func(in *identity.Input) { setField(in, "valid_until", "22-11-2026") }, 1, identity.StatusResubmissionRequested, []string{"document_expired"}},
		{"unreadable expiry goes to review", func(in *identity.Input) { setField(in, "valid_until", "2X-11-20Z6") }, 1, identity.StatusReview, []string{"expiry_date_unreadable"}},
		{"eighteen today", func(in *identity.Input) {
			in.Claimed.BirthDate = "2008-11-23"
			setField(in, "birth_date", "2008-11-23")
		}, 1, identity.StatusVerified, nil},
		{"eighteen tomorrow is final", func(in *identity.Input) {
			in.Claimed.BirthDate = "2008-11-24"
			setField(in, "birth_date", "2008-11-24")
		}, 1, identity.StatusRejected, []string{"under_minimum_age"}},
		{"under age on someone else's birth date is hard", func(in *identity.Input) { setField(in, "birth_date", "2010-01-01") }, 1,
			identity.StatusResubmissionRequested, []string{"under_minimum_age", "birth_date_mismatch"}},
		{"hard failure on the last attempt rejects", func(in *identity.Input) { in.Claimed.FullName = "Agus Prasetyo" }, 2, identity.StatusRejected, []string{"name_mismatch"}},
		{"missing middle name goes to review", func(in *identity.Input) { in.Claimed.FullName = "Siti Nur Rahayu" }, 1, identity.StatusReview, []string{"name_partial_match"}},
		{"claimed number compared without separators", func(in *identity.Input) { in.Claimed.DocumentNumber = "3174 0545 0690 0003" }, 1, identity.StatusVerified, nil},
		{"claimed number differs", func(in *identity.Input) { in.Claimed.DocumentNumber = "3174054506900004" }, 1, identity.StatusResubmissionRequested, []string{"document_number_mismatch"}},
		{"nationality WNI is IDN", func(in *identity.Input) { in.Claimed.Nationality = "IDN" }, 1, identity.StatusVerified, nil},
		{"nationality differs", func(in *identity.Input) { in.Claimed.Nationality = "MYS" }, 1, identity.StatusResubmissionRequested, []string{"nationality_mismatch"}},
		{"low OCR confidence", func(in *identity.Input) { in.Document.MeanConfidence = 0.4 }, 1, identity.StatusReview, []string{"low_ocr_confidence"}},
		{"low confidence of a compared field", func(in *identity.Input) {
			f := in.Document.Fields["name"]
			f.Confidence = 0.5
			in.Document.Fields["name"] = f
		}, 1,
			identity.StatusReview, []string{"low_field_confidence"}},
		{"NIK disagrees with the printed birth date", func(in *identity.Input) { in.Document.Flags = []string{"nik_birth_date_mismatch"} }, 1,
			identity.StatusReview, []string{"nik_birth_date_mismatch"}},
		{"hard beats doubtful", func(in *identity.Input) {
			in.Document.Flags = []string{"nik_gender_mismatch"}
			setField(in, "valid_until", "01-01-2020")
		}, 1, identity.StatusResubmissionRequested, []string{"document_expired", "nik_gender_mismatch"}},
		{"unreadable file", func(in *identity.Input) { in.Document = identity.Document{ReadError: "corrupt file"} }, 1,
			identity.StatusResubmissionRequested, []string{"document_unreadable"}},
		{"screening required but unavailable", func(in *identity.Input) { in.Policy.RequireScreening = true }, 1, identity.StatusReview, []string{"screening_unavailable"}},
		{"screening required and clear", func(in *identity.Input) {
			in.Policy.RequireScreening = true
			in.Screening = &identity.ScreeningOutcome{ScreeningID: "scr_x"}
		}, 1, identity.StatusVerified, nil},
		{"passport with a failed check digit", func(in *identity.Input) {
			in.Policy.DocumentTypes = []string{"passport"}
			in.Document = identity.Document{Readable: true, Type: "passport", MeanConfidence: 0.9, Words: 50, Fields: map[string]identity.DocumentField{
				"surname": {Value: "RAHAYU", Confidence: 0.9}, "given_names": {Value: "SITI", Confidence: 0.9},
				"birth_date":      {Value: "1990-06-05", Confidence: 0.99, Valid: yes()},
				"expiry_date":     {Value: "2030-01-01", Confidence: 0.3, Valid: no(), Problem: "check_digit"},
				"document_number": {Value: "X1234567", Confidence: 0.99, Valid: yes()},
			}}
		}, 1, identity.StatusResubmissionRequested, []string{"mrz_check_digit_failed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := &identity.Input{Document: ktpDoc(), Claimed: claim, Policy: policy, Now: now}
			if c.edit != nil {
				c.edit(in)
			}
			_, out := identity.Evaluate(identity.DefaultChecks(nil), in, c.attempt)
			if out.Status != c.status || !slices.Equal(out.Reasons, c.reasons) {
				t.Errorf("got %s %v, want %s %v", out.Status, out.Reasons, c.status, c.reasons)
			}
		})
	}
}

func setField(in *identity.Input, name, value string) {
	f := in.Document.Fields[name]
	f.Value = value
	in.Document.Fields[name] = f
}

func TestAge(t *testing.T) {
	leap := time.Date(2008, 2, 29, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		now  time.Time
		want int
	}{
		{time.Date(2026, 2, 28, 23, 0, 0, 0, time.UTC), 17},
		{time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), 18},
		{time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC), 20},
	} {
		if got := identity.Age(leap, c.now); got != c.want {
			t.Errorf("Age(2008-02-29, %s) = %d, want %d", c.now.Format(time.DateOnly), got, c.want)
		}
	}
}

// extraCheck stands for a check added later (liveness, face match): Decide needs no change.
type extraCheck struct{}

func (extraCheck) Type() identity.CheckType { return "liveness" }
func (extraCheck) Run(*identity.Input) identity.CheckResult {
	return identity.CheckResult{Type: "liveness", Status: identity.Failed, Reasons: []string{"liveness_inconclusive"}}
}

func TestAnAddedCheckWithoutSeverityGoesToReview(t *testing.T) {
	in := &identity.Input{Document: ktpDoc(), Claimed: identity.Claimed{FullName: "Siti Rahayu", BirthDate: "1990-06-05"},
		Policy: identity.Policy{DocumentTypes: []string{"ktp"}}, Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	results, out := identity.Evaluate(append(identity.DefaultChecks(nil), extraCheck{}), in, 1)
	if len(results) != 12 || out.Status != identity.StatusReview || !slices.Equal(out.Reasons, []string{"liveness_inconclusive"}) {
		t.Errorf("got %d results, %s %v", len(results), out.Status, out.Reasons)
	}
}
