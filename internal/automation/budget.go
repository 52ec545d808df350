package automation

import (
	"context"
	"sync"
	"time"
)

// Ledger keeps each organisation's token use per UTC day. The store implements it in a
// table; MemoryLedger serves tests and single-process setups.
type Ledger interface {
	// Used returns the tokens org used on day ("2006-01-02").
	Used(ctx context.Context, orgID, day string) (int64, error)
	// Add adds tokens to org's use on day and returns the new total.
	Add(ctx context.Context, orgID, day string, tokens int64) (int64, error)
}

// Limits holds the daily allowances arranged for single organisations (svc limits).
type Limits interface {
	// DailyTokens returns org's own allowance, set false when it has none.
	DailyTokens(ctx context.Context, orgID string) (limit int64, set bool, err error)
}

// Budget is a per-organisation daily token allowance. A step may start while the day's
// use is below the limit, and its tokens are charged when it ends: a step can overshoot by
// its own size, never start past the line.
type Budget struct {
	// DailyTokens is the allowance of an organisation without its own; 0 means unlimited.
	DailyTokens int64
	// Limits, when set, holds organisations' own allowances, read at each step (a change
	// applies to the next step).
	Limits Limits
	Ledger Ledger
}

// Day is the ledger key of t: its UTC date.
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Limit is org's allowance: its own, or DailyTokens. 0 means unlimited.
func (b Budget) Limit(ctx context.Context, orgID string) (int64, error) {
	if b.Limits == nil {
		return b.DailyTokens, nil
	}
	n, set, err := b.Limits.DailyTokens(ctx, orgID)
	if err != nil || !set {
		return b.DailyTokens, err
	}
	return n, nil
}

// Check returns a *BudgetExceededError when org has used its allowance for the day of now.
func (b Budget) Check(ctx context.Context, orgID string, now time.Time) error {
	if b.Ledger == nil {
		return nil
	}
	limit, err := b.Limit(ctx, orgID)
	if err != nil || limit <= 0 {
		return err
	}
	day := Day(now)
	used, err := b.Ledger.Used(ctx, orgID, day)
	if err != nil {
		return err
	}
	if used >= limit {
		return &BudgetExceededError{OrgID: orgID, Day: day, Used: used, Limit: limit}
	}
	return nil
}

// Charge adds tokens to org's use for the day of now. crossed is true for the charge that
// took the day's use from below the allowance to at or above it: the moment to tell the
// organisation, once.
func (b Budget) Charge(ctx context.Context, orgID string, now time.Time, tokens int64) (crossed bool, err error) {
	if b.Ledger == nil || tokens <= 0 {
		return false, nil
	}
	limit, err := b.Limit(ctx, orgID)
	if err != nil {
		return false, err
	}
	total, err := b.Ledger.Add(ctx, orgID, Day(now), tokens)
	if err != nil {
		return false, err
	}
	return limit > 0 && total >= limit && total-tokens < limit, nil
}

// MemoryLedger is a Ledger in memory.
type MemoryLedger struct {
	mu   sync.Mutex
	used map[[2]string]int64
}

// Used implements Ledger.
func (l *MemoryLedger) Used(_ context.Context, orgID, day string) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.used[[2]string{orgID, day}], nil
}

// Add implements Ledger.
func (l *MemoryLedger) Add(_ context.Context, orgID, day string, tokens int64) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.used == nil {
		l.used = map[[2]string]int64{}
	}
	k := [2]string{orgID, day}
	l.used[k] += tokens
	return l.used[k], nil
}
