package fraud

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/svcplatform/svc/internal/statemachine"
)

// TestBacktestReplaysSnapshots stores decisions as JSON snapshots, replays a candidate on
// them in two pages and checks the merged report against what the candidate decides directly.
func TestBacktestReplaysSnapshots(t *testing.T) {
	live := mustCompile(t, RuleSpec{Name: "big", Expression: "transaction.amount > 100", ScoreModifier: 40, ReasonCode: "BIG"})
	cand := mustCompile(t,
		RuleSpec{Name: "big", Expression: "transaction.amount > 100", ScoreModifier: 40, ReasonCode: "BIG"},
		RuleSpec{Name: "burst", Expression: "velocity.customer.count_1h > 3", ScoreModifier: 60, ReasonCode: "BURST"},
		RuleSpec{Name: "ip", Expression: "velocity.ip.count_5m > 1", ScoreModifier: 1, ReasonCode: "IP"},
	)
	var stored []StoredDecision
	for i, c := range []struct {
		amount float64
		count  float64
	}{{50, 1}, {150, 1}, {150, 5}, {50, 5}, {500, 9}} {
		env := testEnv()
		env.Transaction.Amount, env.Transaction.ID = c.amount, "t"+string(rune('0'+i))
		env.Velocity = Features{"customer": {"count_1h": c.count}}
		liveRes := live.Evaluate(env, 0)
		raw, err := json.Marshal(env.Snapshot())
		if err != nil {
			t.Fatal(err)
		}
		var snap Snapshot
		if err := json.Unmarshal(raw, &snap); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, StoredDecision{ID: "dec_" + env.Transaction.ID, LiveOutcome: liveRes.Outcome, LiveScore: liveRes.Score, Snapshot: snap})
	}
	lists := map[string]map[string]bool{}
	report, page := NewBacktestReport(), NewBacktestReport()
	report.Replay(cand, lists, stored[:2])
	page.Replay(cand, lists, stored[2:])
	report.Merge(page)
	if report.Evaluated != 5 || report.Changed != 3 {
		t.Errorf("evaluated %d changed %d, want 5 and 3", report.Evaluated, report.Changed)
	}
	if report.LiveOutcomes[OutcomeReview] != 3 || report.LiveOutcomes[OutcomeApprove] != 2 {
		t.Errorf("live outcomes %v", report.LiveOutcomes)
	}
	if report.CandidateOutcomes[OutcomeBlockAndReview] != 1 || report.CandidateOutcomes[OutcomeDecline] != 2 || report.CandidateOutcomes[OutcomeReview] != 1 {
		t.Errorf("candidate outcomes %v", report.CandidateOutcomes)
	}
	if report.Moves["review→decline"] != 2 || report.Moves["approve→block_and_review"] != 1 {
		t.Errorf("moves %v", report.Moves)
	}
	if report.RuleHits["big"] != 3 || report.RuleHits["burst"] != 3 || report.RuleHits["ip"] != 0 {
		t.Errorf("hits %v", report.RuleHits)
	}
	if strings.Join(report.MissingFeatures, ",") != "ip.count_5m" {
		t.Errorf("missing features %v", report.MissingFeatures)
	}
	if len(report.Examples) != 3 || report.Examples[0].DecisionID != "dec_t2" || report.Examples[0].CandidateOutcome != OutcomeDecline {
		t.Errorf("examples %+v", report.Examples)
	}
}

func TestReviewTableAndParse(t *testing.T) {
	if InitialReview(OutcomeReview) != ReviewPending || InitialReview(OutcomeBlockAndReview) != ReviewPending || InitialReview(OutcomeDecline) != ReviewNotRequired {
		t.Error("initial review states")
	}
	if err := Reviews.Check(ReviewPending, ReviewApproved); err != nil {
		t.Error(err)
	}
	for _, c := range [][2]ReviewStatus{{ReviewApproved, ReviewDeclined}, {ReviewNotRequired, ReviewApproved}, {ReviewDeclined, ReviewDeclined}} {
		var conflict *statemachine.ConflictError
		if err := Reviews.Check(c[0], c[1]); !errors.As(err, &conflict) || err.Error() != "state conflict: cannot transition "+string(c[0])+" → "+string(c[1]) {
			t.Errorf("%s → %s: %v", c[0], c[1], err)
		}
	}
	req, err := ParseReview([]byte(`{"decision": "decline", "note": "card reported stolen"}`))
	if err != nil || req.To != ReviewDeclined || req.Note != "card reported stolen" {
		t.Errorf("%+v %v", req, err)
	}
	_, err = ParseReview([]byte(`{"decision": "maybe", "x": 1}`))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Fields["decision"]) == 0 || len(ve.Fields["x"]) == 0 {
		t.Errorf("%v", err)
	}
}
