package automation

import (
	"context"
	"time"
)

// Runner runs the model steps of organisations within their daily token budget. It is what
// the activities of the ai node and of the built-in automations call.
type Runner struct {
	Model  Model
	Budget Budget
	// Observe, when set, sees every step that reached the model (for metrics).
	Observe func(orgID string, res Result, err error)
	// Now is the clock of the budget day; time.Now when nil.
	Now func() time.Time
}

// Outcome is a step's Result with what the budget said.
type Outcome struct {
	Result
	// BudgetCrossed is true when this step's tokens used up the organisation's allowance
	// for the day: the caller publishes the budget event once, here.
	BudgetCrossed bool
}

// Run checks orgID's budget, asks the model (see Ask) and charges the tokens used, also
// those of a step that failed after the model answered.
func (r *Runner) Run(ctx context.Context, orgID string, p Prompt, secrets ...string) (Outcome, error) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	if err := r.Budget.Check(ctx, orgID, now()); err != nil {
		return Outcome{}, err
	}
	res, err := Ask(ctx, r.Model, p, secrets...)
	out := Outcome{Result: res}
	if res.Usage.TotalTokens > 0 {
		crossed, cerr := r.Budget.Charge(ctx, orgID, now(), res.Usage.TotalTokens)
		if cerr != nil && err == nil {
			err = cerr
		}
		out.BudgetCrossed = crossed
	}
	if r.Observe != nil && res.Attempts > 0 {
		r.Observe(orgID, res, err)
	}
	return out, err
}
