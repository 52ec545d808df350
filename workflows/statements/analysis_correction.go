package statements

import (
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/workflows"
)

// AnalysisCorrection records an analyst's corrections of an analysis's transactions: the
// CorrectAnalysis activity (local: the API waits for it) applies them to version
// PreviousVersion, reconciles and analyses again, stores version PreviousVersion+1 with the
// actor, and publishes analysis.corrected. An analysis that has moved on meanwhile (another
// correction) is refused with the SPEC 3.5 conflict, which the API answers as 409; a
// correction naming no transaction is refused as InvalidArgument (400).
func AnalysisCorrection(ctx workflow.Context, in CorrectionInput) error {
	rec := CorrectionRecord{Correction: in, Event: workflows.RunEventInput(ctx, workflows.StableIDs(ctx), in.OrgID, CorrectionWorkflowID(in.AnalysisID, in.PreviousVersion),
		events.AnalysisCorrected, "corrected", map[string]any{
			"analysisId": in.AnalysisID, "version": in.PreviousVersion + 1, "previousVersion": in.PreviousVersion, "actorUserId": in.ActorUserID,
		})}
	lctx := workflows.BookkeepingLocal(ctx, "correction by "+in.ActorUserID, workflows.ErrTypeStateConflict, workflows.ErrTypeInvalidArgument)
	return workflow.ExecuteLocalActivity(lctx, ActivityCorrectAnalysis, rec).Get(ctx, nil)
}
