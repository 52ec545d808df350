// Package automation holds the AI automation product's activities: the built-in automations'
// runs, and the model step they share with the orchestration ai node (Step). Each model call is one activity
// attempt with the provider client's own retries off, so that Temporal owns retries: a 429
// becomes an error whose next retry waits the provider's Retry-After.
package automation

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
)

// Activities are the AI automation product's side effects. Each can run twice: exchanges
// are stored under the step (or run) and the activity attempt, events keep derived ids.
type Activities struct {
	// Runner asks the model within the organisations' daily budgets.
	Runner *automation.Runner
	// Store keeps the audit record of each exchange.
	Store *store.Store
	// Publisher publishes automation.budget_exceeded.
	Publisher activities.Publisher
	// Audit says whether prompts and answers are kept or only their sizes (ai.audit).
	Audit automation.AuditPolicy
	// Logger logs ids, models and token counts, never prompts, answers or keys.
	Logger *slog.Logger
	// RunDeps are what the built-in automations read.
	RunDeps
}

// Step runs one model step for orgID: it asks the model within the organisation's budget,
// keeps the audit record x (filled with the exchange) and publishes the budget event when due.
// Errors are the automation package's; TemporalError maps them for the workflow. The
// orchestration ai node (activities/orchestration.RunAINode) and the built-in automations
// run their model steps through it.
func (a *Activities) Step(ctx context.Context, orgID string, x store.AIExchange, p automation.Prompt, secretValues ...string) (automation.Outcome, error) {
	if a == nil || a.Runner == nil {
		return automation.Outcome{}, automation.ErrNotConfigured
	}
	out, err := a.Runner.Run(ctx, orgID, p, secretValues...)
	a.afterRun(ctx, orgID, out, err, x)
	return out, err
}

// afterRun keeps the audit record of a step that reached the model and publishes the budget
// event when the step used up the day's budget or was refused for it. Its own failures are
// logged, never turned into the step's failure: the model already answered.
func (a *Activities) afterRun(ctx context.Context, orgID string, out automation.Outcome, runErr error, x store.AIExchange) {
	log := a.logger()
	if out.Attempts > 0 && a.Store != nil {
		rec := automation.Audit(a.Audit, out.Conversation)
		x.Model, x.Usage, x.LatencyMs, x.Attempts = out.Model, out.Usage, out.Latency.Milliseconds(), out.Attempts
		x.Policy, x.Conversation = string(rec.Policy), rec.Conversation
		if runErr != nil {
			x.Error = runErr.Error()
		}
		if err := a.Store.Automation.SaveExchange(ctx, &x); err != nil {
			log.Warn("ai exchange not stored", "org", orgID, "id", x.ID, "err", err)
		}
	}
	var be *automation.BudgetExceededError
	if out.BudgetCrossed || errors.As(runErr, &be) {
		if err := a.publishBudgetExceeded(ctx, orgID); err != nil {
			log.Warn("budget event not published", "org", orgID, "err", err)
		}
	}
	log.Info("ai step", "org", orgID, "id", x.ID, "model", out.Model, "tokens", out.Usage.TotalTokens,
		"latency_ms", out.Latency.Milliseconds(), "attempts", out.Attempts, "ok", runErr == nil)
}

// publishBudgetExceeded publishes automation.budget_exceeded once per organisation and UTC
// day: the event id derives from both, so a second publish is the same event.
func (a *Activities) publishBudgetExceeded(ctx context.Context, orgID string) error {
	now := time.Now().UTC()
	day := automation.Day(now)
	start, _ := time.Parse(time.DateOnly, day)
	used, err := a.Runner.Budget.Ledger.Used(ctx, orgID, day)
	if err != nil {
		return err
	}
	limit, err := a.Runner.Budget.Limit(ctx, orgID)
	if err != nil {
		return err
	}
	return activities.Publish(ctx, a.Publisher, "automation", workflows.PublishEventInput{
		EventID: events.DeriveID(start, orgID, day, events.AutomationBudgetExceeded), Event: events.AutomationBudgetExceeded,
		OrgID: orgID, OccurredAt: now.Truncate(time.Millisecond),
		Data: map[string]any{"day": day, "usedTokens": used, "dailyTokens": limit},
	})
}

// TemporalError maps a model step's error to the application error the workflows' retry
// policies read: final errors are not retried, a 429 waits the provider's Retry-After.
func TemporalError(err error, attempt int) error {
	detail := automation.StepFailure{Attempt: attempt}
	var rl *automation.RateLimitedError
	switch {
	case errors.As(err, &rl):
		return temporal.NewApplicationErrorWithOptions(err.Error(), automation.ErrTypeRateLimited, temporal.ApplicationErrorOptions{
			NextRetryDelay: rl.RetryAfter, Details: []any{detail},
		})
	case automation.Final(err):
		return temporal.NewApplicationErrorWithOptions(err.Error(), automation.ErrTypeFinal, temporal.ApplicationErrorOptions{
			NonRetryable: true, Details: []any{detail},
		})
	}
	return temporal.NewApplicationErrorWithOptions(err.Error(), automation.ErrTypeProvider, temporal.ApplicationErrorOptions{Details: []any{detail}})
}

// AttemptOf is the activity attempt of ctx (1 outside an activity).
func AttemptOf(ctx context.Context) int {
	if activity.IsActivity(ctx) {
		return int(activity.GetInfo(ctx).Attempt)
	}
	return 1
}

func (a *Activities) logger() *slog.Logger {
	if a.Logger != nil {
		return a.Logger
	}
	return slog.Default()
}
