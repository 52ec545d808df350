package statements

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	stmt "github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/workflows"
)

// TextTimeout bounds one ReadAnalysisText attempt: every PDF of the analysis, scanned
// pages OCR'd one by one.
const TextTimeout = 15 * time.Minute

// stageCtx sets the options of a stage run as a regular activity (inspect, text).
func stageCtx(ctx workflow.Context, stage stmt.Stage, timeout time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: timeout,
		RetryPolicy:         stageRetry(),
		Summary:             string(stage),
	})
}

// textCtx runs the text stage on the documents' text queue, where the worker runs about one
// OCR at a time per core, heartbeating so that a lost worker is noticed early.
func textCtx(ctx workflow.Context) workflow.Context {
	ctx = stageCtx(ctx, stmt.StageText, TextTimeout)
	opts := workflow.GetActivityOptions(ctx)
	opts.TaskQueue = workflows.QueueDocumentsText
	opts.HeartbeatTimeout = 30 * time.Second
	opts.RetryPolicy.MaximumAttempts = 3
	return workflow.WithActivityOptions(ctx, opts)
}

// localStageCtx sets the options of a short stage (parse, analyse) run as a local activity.
func localStageCtx(ctx workflow.Context, stage stmt.Stage) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy:         stageRetry(),
		Summary:             string(stage),
	})
}

// stageRetry is the retry policy of the stages: a few attempts for tool failures and
// transient store errors, none for what retrying cannot fix.
func stageRetry() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval:        2 * time.Second,
		BackoffCoefficient:     2,
		MaximumInterval:        30 * time.Second,
		MaximumAttempts:        5,
		NonRetryableErrorTypes: []string{ErrTypeAnalysisUnreadable},
	}
}
