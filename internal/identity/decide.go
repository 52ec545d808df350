package identity

// Outcome is what an attempt's checks decide.
type Outcome struct {
	// Status is the verification's next state: verified, rejected, review or
	// resubmission_requested.
	Status Status `json:"status"`
	// Reasons are the failed checks' reason codes, in check order, without repeats.
	Reasons []string `json:"reasons,omitempty"`
}

// Decide turns an attempt's check results into the verification's next state. attempt is
// the attempt's number (from 1), maxAttempts the policy's cap. The worst failure wins:
// Final rejects; Hard asks for a new document while attempts remain and rejects after the
// last; Doubtful sends to review; no failure verifies. Under age is Final when the
// document's birth date matches the claim (a different document of the same person cannot
// make them older) and Hard otherwise (the document may be someone else's, or misread).
func Decide(results []CheckResult, attempt, maxAttempts int) Outcome {
	birthDateConfirmed := false
	for _, r := range results {
		if r.Type == CheckBirthDate && r.Status == Passed {
			birthDateConfirmed = true
		}
	}
	var o Outcome
	worst := Severity(0)
	seen := map[string]bool{}
	for _, r := range results {
		if r.Status != Failed {
			continue
		}
		for _, reason := range r.Reasons {
			if seen[reason] {
				continue
			}
			seen[reason] = true
			o.Reasons = append(o.Reasons, reason)
			s := SeverityOf(reason)
			if reason == ReasonUnderMinimumAge && birthDateConfirmed {
				s = Final
			}
			worst = max(worst, s)
		}
	}
	switch {
	case worst == Final:
		o.Status = StatusRejected
	case worst == Hard && attempt < maxAttempts:
		o.Status = StatusResubmissionRequested
	case worst == Hard:
		o.Status = StatusRejected
	case worst == Doubtful:
		o.Status = StatusReview
	default:
		o.Status = StatusVerified
	}
	return o
}

// Evaluate runs the checks on in and decides: the whole of an attempt after the document
// was read.
func Evaluate(checks []Check, in *Input, attempt int) ([]CheckResult, Outcome) {
	results := RunChecks(checks, in)
	return results, Decide(results, attempt, in.Policy.WithDefaults().MaxAttempts)
}
