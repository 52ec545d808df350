package identity

import "time"

// CheckType names a check.
type CheckType string

// The check types, in the order DefaultChecks runs them.
const (
	CheckDocument       CheckType = "document"        // readable, a known type, allowed by the policy
	CheckMRZ            CheckType = "mrz"             // passport MRZ check digits
	CheckExpiry         CheckType = "expiry"          // not expired
	CheckAge            CheckType = "minimum_age"     // old enough for the policy
	CheckName           CheckType = "name"            // printed name against the claimed name
	CheckBirthDate      CheckType = "birth_date"      // printed birth date equals the claimed one
	CheckDocumentNumber CheckType = "document_number" // printed number equals the claimed one
	CheckNationality    CheckType = "nationality"     // printed nationality equals the claimed one
	CheckQuality        CheckType = "quality"         // OCR confidence of the fields that matter
	CheckTamper         CheckType = "tamper"          // machine and printed zones disagreeing
	CheckScreening      CheckType = "screening"       // sanctions and PEP lists
)

// CheckStatus is a check's verdict.
type CheckStatus string

// The verdicts (Persona's vocabulary).
const (
	Passed        CheckStatus = "passed"
	Failed        CheckStatus = "failed"
	NotApplicable CheckStatus = "not_applicable"
)

// CheckResult is what one check found.
type CheckResult struct {
	Type   CheckType   `json:"type"`
	Status CheckStatus `json:"status"`
	// Reasons are reason codes (see Reason*): why it failed, or why it did not apply.
	Reasons []string `json:"reasons,omitempty"`
	// Score is the check's measure where it has one (the name similarity, 0..1).
	Score *float64 `json:"score,omitempty"`
	// ScreeningID is the screening product's screening (scr_) the screening check read, for
	// the reviewer.
	ScreeningID string `json:"screeningId,omitempty"`
}

// Input is what every check sees: the document as read, the claim, the policy, the day of
// the attempt and, when the policy requires it, the screening outcome.
type Input struct {
	Document Document
	Claimed  Claimed
	Policy   Policy
	// Now is the moment of the attempt (age and expiry are judged on its date, in UTC).
	Now time.Time
	// Screening is nil when no screening ran (not required, or not available).
	Screening *ScreeningOutcome
}

// ScreeningOutcome is the result of screening the verified person's name and birth date.
type ScreeningOutcome struct {
	// ScreeningID is the screening product's id (scr_...), for the reviewer.
	ScreeningID string `json:"screeningId,omitempty"`
	// Matches is how many list entries matched well enough to need a look.
	Matches int `json:"matches"`
	// Error is set when the screening could not run (the check then asks for review).
	Error string `json:"error,omitempty"`
}

// Check is one check of an attempt. Run must be a pure function of the input.
type Check interface {
	Type() CheckType
	Run(in *Input) CheckResult
}

// DefaultChecks are the checks of every attempt, with m as the name matcher.
func DefaultChecks(m NameMatcher) []Check {
	if m == nil {
		m = DefaultNameMatcher{}
	}
	return []Check{
		documentCheck{}, mrzCheck{}, expiryCheck{}, ageCheck{},
		nameCheck{matcher: m}, birthDateCheck{}, documentNumberCheck, nationalityCheck,
		qualityCheck{}, tamperCheck{}, screeningCheck{},
	}
}

// RunChecks runs the checks on in. When the document was not readable or is not of an
// allowed type, the checks after the document check do not apply (there is nothing to
// compare) and say so with the reason "document_not_usable".
func RunChecks(checks []Check, in *Input) []CheckResult {
	out := make([]CheckResult, 0, len(checks))
	usable := true
	for _, c := range checks {
		if !usable {
			out = append(out, notApplicable(c.Type(), ReasonDocumentNotUsable))
			continue
		}
		r := c.Run(in)
		out = append(out, r)
		if c.Type() == CheckDocument && r.Status == Failed {
			usable = false
		}
	}
	return out
}

func passed(t CheckType) CheckResult { return CheckResult{Type: t, Status: Passed} }

func failed(t CheckType, reasons ...string) CheckResult {
	return CheckResult{Type: t, Status: Failed, Reasons: reasons}
}

func notApplicable(t CheckType, reason string) CheckResult {
	return CheckResult{Type: t, Status: NotApplicable, Reasons: []string{reason}}
}
