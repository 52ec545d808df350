package documents

import (
	"go.temporal.io/sdk/workflow"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/workflows"
)

// DocumentCorrection records an analyst's correction of a document's latest extraction: the
// CorrectDocument activity (local, as the pipeline's bookkeeping: the API waits for it) stores the new extraction (the workflow id) with its
// previousExtractionId, moves the document to extracted and publishes extraction.corrected
// with the actor. A document that has moved on meanwhile (another correction) is refused with
// the SPEC 3.5 conflict, which the API answers as 409.
func DocumentCorrection(ctx workflow.Context, in CorrectionInput) error {
	rec := CorrectionRecord{Correction: in, Event: workflows.RunEventInput(ctx, workflows.StableIDs(ctx), in.OrgID, in.ExtractionID, events.ExtractionCorrected, "corrected",
		map[string]any{
			"documentId": in.DocumentID, "extractionId": in.ExtractionID,
			"actorUserId": in.ActorUserID, "previousExtractionId": in.PreviousExtractionID,
		})}
	lctx := workflows.BookkeepingLocal(ctx, "correction by "+in.ActorUserID, workflows.ErrTypeStateConflict, workflows.ErrTypeInvalidArgument)
	return workflow.ExecuteLocalActivity(lctx, ActivityCorrectDocument, rec).Get(ctx, nil)
}
