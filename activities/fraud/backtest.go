// Package fraud holds the anti-fraud product's activities: the backtest's page replays and
// its bookkeeping.
package fraud

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	engine "github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/store"
	fraudwf "github.com/svcplatform/svc/workflows/fraud"
)

// Activities are the fraud product's activities: the backtest's.
type Activities struct {
	Store *store.Store
}

func invalid(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return temporal.NewNonRetryableApplicationError(msg, fraudwf.ErrTypeBacktest, errors.New(msg))
}

// ReplayPage replays the candidate version over the next page of the backtest's decisions.
// It writes nothing, so running it twice is harmless.
func (b *Activities) ReplayPage(ctx context.Context, in fraudwf.ReplayPageInput) (fraudwf.ReplayPageResult, error) {
	bt, err := b.Store.Fraud.GetBacktest(ctx, in.OrgID, in.BacktestID)
	if errors.Is(err, store.ErrNotFound) {
		return fraudwf.ReplayPageResult{}, invalid("backtest %s not found", in.BacktestID)
	}
	if err != nil {
		return fraudwf.ReplayPageResult{}, err
	}
	rs, err := b.Store.Fraud.GetRuleSet(ctx, in.OrgID, bt.RuleSetID)
	if err != nil {
		return fraudwf.ReplayPageResult{}, err
	}
	v, err := b.Store.Fraud.GetRuleSetVersion(ctx, in.OrgID, bt.RuleSetID, bt.Version)
	if err != nil {
		return fraudwf.ReplayPageResult{}, err
	}
	var spec engine.VersionSpec
	if err := json.Unmarshal([]byte(v.Spec), &spec); err != nil {
		return fraudwf.ReplayPageResult{}, invalid("version %d: %v", bt.Version, err)
	}
	candidate, err := engine.Compile(spec, nil)
	if err != nil {
		return fraudwf.ReplayPageResult{}, invalid("version %d does not compile: %v", bt.Version, err)
	}
	lists, err := b.Store.Fraud.ListValues(ctx, in.OrgID, candidate)
	if err != nil {
		return fraudwf.ReplayPageResult{}, err
	}
	rows, err := b.Store.Fraud.BacktestPage(ctx, bt, rs.AppliesTo, in.After, in.Limit)
	if err != nil {
		return fraudwf.ReplayPageResult{}, err
	}
	stored := make([]engine.StoredDecision, 0, len(rows))
	for _, r := range rows {
		var snap engine.Snapshot
		if err := json.Unmarshal([]byte(r.Snapshot), &snap); err != nil {
			return fraudwf.ReplayPageResult{}, invalid("decision %s: stored evidence unreadable: %v", r.ID, err)
		}
		stored = append(stored, engine.StoredDecision{ID: r.ID, LiveOutcome: engine.Outcome(r.Outcome), LiveScore: r.Score, Snapshot: snap})
	}
	report := engine.NewBacktestReport()
	report.Replay(candidate, lists, stored)
	out := fraudwf.ReplayPageResult{Report: report, Count: len(rows), Total: bt.Total}
	if len(rows) > 0 {
		out.Last = rows[len(rows)-1].ID
	}
	return out, nil
}

// Save records a backtest's progress or end.
func (b *Activities) Save(ctx context.Context, in fraudwf.SaveBacktestInput) error {
	raw, err := json.Marshal(in.Report)
	if err != nil {
		return err
	}
	return b.Store.Fraud.SaveBacktest(ctx, in.OrgID, in.BacktestID, in.Status, in.Done, string(raw), in.Error)
}
