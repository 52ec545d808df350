package documents

import (
	"net/http"
	"time"

	"go.temporal.io/sdk/client"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/workflows"
)

// Names of the document workflows, their Update and their activities (methods of
// activities/documents.Activities, registered under their method names).
const (
	// DocumentPipelineName is the registered name of the DocumentPipeline workflow.
	DocumentPipelineName = "DocumentPipeline"
	// DocumentCorrectionName is the registered name of the DocumentCorrection workflow.
	DocumentCorrectionName = "DocumentCorrection"
	// DocumentWorkflowSlug is the WorkflowSlug search attribute of document runs.
	DocumentWorkflowSlug = "document"
	// UpdateDocumentPassword tells a pipeline waiting in password_required that a new
	// password is stored for it; it answers once the password has been tried.
	UpdateDocumentPassword = "document-password"

	ActivityAcceptDocument   = "AcceptDocument"
	ActivityInspectDocument  = "InspectDocument"
	ActivityReadDocumentText = "ReadDocumentText"
	ActivityClassifyDocument = "ClassifyDocument"
	ActivityExtractDocument  = "ExtractDocument"
	ActivityDecideDocument   = "DecideDocument"
	ActivityRecordDocument   = "RecordDocument"
	ActivityFinishDocument   = "FinishDocument"
	ActivityCorrectDocument  = "CorrectDocument"
)

// Application error types of the document activities.
const (
	// ErrTypeDocumentUnreadable: the file cannot be processed and retrying cannot change that
	// (corrupt, unsupported, unknown type, missing blob); the message is safe to show.
	ErrTypeDocumentUnreadable = "DocumentUnreadable"
	// ErrTypeDocumentTool: an external program failed or timed out (retried); the message is
	// safe to show.
	ErrTypeDocumentTool = "DocumentTool"
	// ErrTypeDocumentFailed is the error a pipeline whose document failed ends with.
	ErrTypeDocumentFailed = "DocumentFailed"
)

// DocumentInput starts the pipeline of one stored document: ids and what document.uploaded
// says, never the file (activities read it from the blob store) nor its password (they
// open it from the store, where it is sealed).
type DocumentInput struct {
	DocumentID  string `json:"documentId"`
	OrgID       string `json:"orgId"`
	Filename    string `json:"filename"`
	SHA256      string `json:"sha256"`
	ExternalRef string `json:"externalRef,omitempty"`
	ExternalID  string `json:"externalId,omitempty"`
	// TypeHint skips classification: a built-in type or one of the organisation's templates.
	TypeHint string `json:"typeHint,omitempty"`
	// PasswordTimeout is how long the pipeline waits for the password of an encrypted PDF
	// (config documents.password_timeout).
	PasswordTimeout time.Duration `json:"passwordTimeout"`
}

// DocumentStartOptions are the options the API starts a pipeline with: workflow id =
// document id (a retried start returns the same run), the documents queue and the search
// attributes OrgId, WorkflowSlug ("document") and ExternalId.
func DocumentStartOptions(in DocumentInput) client.StartWorkflowOptions {
	return workflows.ProductStart(in.DocumentID, workflows.QueueDocuments, "document "+in.Filename, in.OrgID, DocumentWorkflowSlug, in.ExternalID)
}

// DocumentResult is what a pipeline that did not fail returns.
type DocumentResult struct {
	Status          docintel.Status `json:"status"`
	Type            string          `json:"type"`
	ExtractionID    string          `json:"extractionId"`
	ConfidenceScore float64         `json:"confidenceScore"`
}

// DocumentRef names a document: the input of the stage activities, which read the file,
// its password and its text from the stores.
type DocumentRef struct {
	OrgID      string `json:"orgId"`
	DocumentID string `json:"documentId"`
}

// AcceptDocumentInput moves a document from uploaded to processing and publishes
// document.uploaded.
type AcceptDocumentInput struct {
	Ref   DocumentRef                 `json:"ref"`
	Event workflows.PublishEventInput `json:"event"`
}

// InspectResult is what InspectDocument learned. A PDF that needs a user password and has
// none, or a wrong one, is not an error: PasswordRequired is set, with the message for
// document.password_required.
type InspectResult struct {
	Format           docintel.Format `json:"format"`
	Pages            int             `json:"pages"`
	Encrypted        bool            `json:"encrypted"`
	PasswordRequired bool            `json:"passwordRequired"`
	Message          string          `json:"message,omitempty"`
}

// TextSummary describes the text ReadDocumentText read and stored in the blob store under
// TextKey: the text itself can be large, so it stays out of the workflow's history and the
// next stages read it by key.
type TextSummary struct {
	TextKey        string              `json:"textKey"`
	Source         docintel.TextSource `json:"source"`
	Pages          int                 `json:"pages"`
	OCRPages       int                 `json:"ocrPages"`
	Rotation       int                 `json:"rotation"`
	Lines          int                 `json:"lines"`
	MeanConfidence float64             `json:"meanConfidence"`
}

// ExtractInput asks for the fields of a document of a type (a built-in type, or a template's
// type; TemplateID set when classification matched a template).
type ExtractInput struct {
	Ref        DocumentRef `json:"ref"`
	Type       string      `json:"type"`
	TemplateID string      `json:"templateId,omitempty"`
}

// DecideInput asks whether an extraction can be trusted at the organisation's threshold.
type DecideInput struct {
	Ref        DocumentRef          `json:"ref"`
	Extraction *docintel.Extraction `json:"extraction"`
}

// DocumentRecord is a pipeline write to the document (the non-zero fields) with the events
// it publishes.
type DocumentRecord struct {
	Ref                      DocumentRef     `json:"ref"`
	Status                   docintel.Status `json:"status,omitempty"`
	Type                     string          `json:"type,omitempty"`
	ClassificationConfidence *float64        `json:"classificationConfidence,omitempty"`
	TemplateID               string          `json:"templateId,omitempty"`
	FailedStage              docintel.Stage  `json:"failedStage,omitempty"`
	ErrorMessage             string          `json:"errorMessage,omitempty"`
	// ForgetPassword clears the stored password (a wrong one, or at the end).
	ForgetPassword bool                          `json:"forgetPassword,omitempty"`
	CompletedAt    *time.Time                    `json:"completedAt,omitempty"`
	Events         []workflows.PublishEventInput `json:"events,omitempty"`
}

// FinishDocumentInput stores the pipeline's extraction (ext_ id derived by the workflow),
// moves the document to the decision's status and publishes document.extracted or
// document.requires_review.
type FinishDocumentInput struct {
	Ref          DocumentRef                 `json:"ref"`
	ExtractionID string                      `json:"extractionId"`
	Extraction   *docintel.Extraction        `json:"extraction"`
	Decision     *docintel.Decision          `json:"decision"`
	CompletedAt  time.Time                   `json:"completedAt"`
	Event        workflows.PublishEventInput `json:"event"`
}

// PasswordRetry is the argument of the document-password Update. It carries no password:
// the API stores it sealed before it sends the Update (ARCHITECTURE 4: sensitive values
// never enter history).
type PasswordRetry struct {
	ActorUserID string `json:"actorUserId,omitempty"`
}

// PasswordRetryResult is the document's status once the password has been tried:
// password_required again when it was wrong, processing when it opened the file.
type PasswordRetryResult struct {
	Status docintel.Status `json:"status"`
}

// CorrectionInput starts a DocumentCorrection: an analyst's values for some fields of the
// document's latest extraction (PreviousExtractionID). Workflow id = the new extraction id.
type CorrectionInput struct {
	OrgID                string            `json:"orgId"`
	DocumentID           string            `json:"documentId"`
	ExtractionID         string            `json:"extractionId"`
	PreviousExtractionID string            `json:"previousExtractionId"`
	ActorUserID          string            `json:"actorUserId"`
	Fields               map[string]string `json:"fields"`
	CorrectedAt          time.Time         `json:"correctedAt"`
}

// CorrectionStartOptions are the options the API starts a correction with: workflow id =
// the new extraction id, the documents queue, the document's search attributes.
func CorrectionStartOptions(in CorrectionInput) client.StartWorkflowOptions {
	o := workflows.ProductStart(in.ExtractionID, workflows.QueueDocuments, "correction of "+in.DocumentID, in.OrgID, DocumentWorkflowSlug, "")
	o.WorkflowExecutionTimeout = 10 * time.Minute
	return o
}

// CorrectionRecord is the input of the CorrectDocument activity: the correction with its
// extraction.corrected event.
type CorrectionRecord struct {
	Correction CorrectionInput             `json:"correction"`
	Event      workflows.PublishEventInput `json:"event"`
}

// CorrectionErrorStatus maps an error of a DocumentCorrection run to the HTTP status and
// message the API answers with (409 for a document that moved on, 400 for an unknown field);
// ok is false for other errors.
func CorrectionErrorStatus(err error) (status int, msg string, ok bool) {
	if status, msg, ok = workflows.UpdateErrorStatus(err); ok && (status == http.StatusConflict || status == http.StatusBadRequest) {
		return status, msg, true
	}
	return 0, "", false
}

// DocumentStateConflict is the error of a document activity or Update refused because the
// document is in state from and cannot move to to (SPEC 3.5; the API answers 409).
func DocumentStateConflict(from, to string) error { return workflows.StateConflictError(from, to) }
