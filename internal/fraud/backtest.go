package fraud

import (
	"slices"
	"sort"
)

// MaxBacktestExamples caps the changed decisions a backtest report shows.
const MaxBacktestExamples = 20

// BacktestReport is how a candidate version would have changed the stored decisions of a
// date range: outcome counts on both sides, the moves between them, hits per rule and
// examples of changed decisions. Reports of pages of decisions merge into one.
type BacktestReport struct {
	Evaluated         int             `json:"evaluated"`
	Changed           int             `json:"changed"`
	LiveOutcomes      map[Outcome]int `json:"liveOutcomes"`
	CandidateOutcomes map[Outcome]int `json:"candidateOutcomes"`
	// Moves counts changed decisions by "live→candidate" outcome pair.
	Moves map[string]int `json:"moves"`
	// RuleHits counts hits per candidate rule name.
	RuleHits map[string]int `json:"ruleHits"`
	// RuleErrors counts rule evaluations that failed.
	RuleErrors int `json:"ruleErrors"`
	// MissingFeatures names candidate features some stored decisions lack (read as 0).
	MissingFeatures []string          `json:"missingFeatures"`
	Examples        []BacktestExample `json:"examples"`
}

// BacktestExample is one decision the candidate would have changed.
type BacktestExample struct {
	DecisionID       string   `json:"decisionId"`
	TransactionID    string   `json:"transactionId"`
	LiveOutcome      Outcome  `json:"liveOutcome"`
	LiveScore        int      `json:"liveScore"`
	CandidateOutcome Outcome  `json:"candidateOutcome"`
	CandidateScore   int      `json:"candidateScore"`
	ReasonCodes      []string `json:"candidateReasonCodes"`
}

// NewBacktestReport returns an empty report.
func NewBacktestReport() BacktestReport {
	return BacktestReport{
		LiveOutcomes: map[Outcome]int{}, CandidateOutcomes: map[Outcome]int{}, Moves: map[string]int{},
		RuleHits: map[string]int{}, MissingFeatures: []string{}, Examples: []BacktestExample{},
	}
}

// StoredDecision is what a backtest reads of one stored decision.
type StoredDecision struct {
	ID          string
	LiveOutcome Outcome
	LiveScore   int
	Snapshot    Snapshot
}

// Replay evaluates candidate against each stored decision and adds the results to r.
func (r *BacktestReport) Replay(candidate *RuleSet, lists map[string]map[string]bool, decisions []StoredDecision) {
	for _, d := range decisions {
		for _, f := range d.Snapshot.Missing(candidate) {
			if !slices.Contains(r.MissingFeatures, f.Path()) {
				r.MissingFeatures = append(r.MissingFeatures, f.Path())
				sort.Strings(r.MissingFeatures)
			}
		}
		env := d.Snapshot.Env(lists)
		r.add(d, candidate.Evaluate(&env, 0))
	}
}

func (r *BacktestReport) add(d StoredDecision, cand Result) {
	r.Evaluated++
	r.LiveOutcomes[d.LiveOutcome]++
	r.CandidateOutcomes[cand.Outcome]++
	r.RuleErrors += len(cand.Errors)
	for _, m := range cand.Matched {
		r.RuleHits[m.Name]++
	}
	if cand.Outcome == d.LiveOutcome {
		return
	}
	r.Changed++
	r.Moves[string(d.LiveOutcome)+"→"+string(cand.Outcome)]++
	if len(r.Examples) < MaxBacktestExamples {
		r.Examples = append(r.Examples, BacktestExample{
			DecisionID: d.ID, TransactionID: d.Snapshot.Event.ID, LiveOutcome: d.LiveOutcome, LiveScore: d.LiveScore,
			CandidateOutcome: cand.Outcome, CandidateScore: cand.Score, ReasonCodes: cand.ReasonCodes,
		})
	}
}

// Merge adds another report (of a later page) to r.
func (r *BacktestReport) Merge(o BacktestReport) {
	r.Evaluated += o.Evaluated
	r.Changed += o.Changed
	r.RuleErrors += o.RuleErrors
	for k, v := range o.LiveOutcomes {
		r.LiveOutcomes[k] += v
	}
	for k, v := range o.CandidateOutcomes {
		r.CandidateOutcomes[k] += v
	}
	for k, v := range o.Moves {
		r.Moves[k] += v
	}
	for k, v := range o.RuleHits {
		r.RuleHits[k] += v
	}
	for _, f := range o.MissingFeatures {
		if !slices.Contains(r.MissingFeatures, f) {
			r.MissingFeatures = append(r.MissingFeatures, f)
		}
	}
	sort.Strings(r.MissingFeatures)
	for _, e := range o.Examples {
		if len(r.Examples) < MaxBacktestExamples {
			r.Examples = append(r.Examples, e)
		}
	}
}
