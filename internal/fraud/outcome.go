package fraud

// Outcome is what a decision tells the caller to do.
type Outcome string

// The outcomes, from least to most severe.
const (
	OutcomeApprove        Outcome = "approve"
	OutcomeReview         Outcome = "review"
	OutcomeBlockAndReview Outcome = "block_and_review"
	OutcomeDecline        Outcome = "decline"
)

// Outcomes lists every outcome, least severe first.
var Outcomes = []Outcome{OutcomeApprove, OutcomeReview, OutcomeBlockAndReview, OutcomeDecline}

// RaisesAlert reports whether a decision with this outcome needs a person: review and
// block_and_review raise an alert.
func (o Outcome) RaisesAlert() bool {
	return o == OutcomeReview || o == OutcomeBlockAndReview
}

// Thresholds turn a score into an outcome: a score at or above a threshold gives that outcome,
// and the most severe one reached wins. A nil threshold is never reached.
type Thresholds struct {
	Review         *int `json:"review,omitempty"`
	BlockAndReview *int `json:"block_and_review,omitempty"`
	Decline        *int `json:"decline,omitempty"`
}

// MaxThreshold bounds thresholds and score modifiers alike.
const MaxThreshold = 100_000

// Outcome is the outcome of score.
func (t Thresholds) Outcome(score int) Outcome {
	out := OutcomeApprove
	for _, s := range t.steps() {
		if s.at != nil && score >= *s.at {
			out = s.outcome
		}
	}
	return out
}

type step struct {
	field   string
	at      *int
	outcome Outcome
}

// steps lists the thresholds from least to most severe.
func (t Thresholds) steps() []step {
	return []step{
		{"review", t.Review, OutcomeReview},
		{"block_and_review", t.BlockAndReview, OutcomeBlockAndReview},
		{"decline", t.Decline, OutcomeDecline},
	}
}

// validate records what is wrong with the thresholds: at least one is set, each within
// bounds, and a more severe one is higher than a less severe one (else that one could never
// be the outcome).
func (t Thresholds) validate(v *ValidationError) {
	var prev *step
	set := 0
	for _, s := range t.steps() {
		if s.at == nil {
			continue
		}
		set++
		path := "thresholds." + s.field
		switch {
		case *s.at < 1 || *s.at > MaxThreshold:
			v.add(path, "must be between 1 and %d", MaxThreshold)
		case prev != nil && *s.at <= *prev.at:
			v.add(path, "must be higher than thresholds.%s (%d)", prev.field, *prev.at)
		}
		prev = &s
	}
	if set == 0 {
		v.add("thresholds", "set at least one of review, block_and_review, decline")
	}
}
