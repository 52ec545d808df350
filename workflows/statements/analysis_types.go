package statements

import (
	"strconv"
	"time"

	"go.temporal.io/sdk/client"

	stmt "github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/workflows"
)

// Names of the analysis workflows, their Update and their activities (methods of
// activities/statements.Activities, registered under their method names).
const (
	// AnalysisPipelineName is the registered name of the AnalysisPipeline workflow.
	AnalysisPipelineName = "AnalysisPipeline"
	// AnalysisCorrectionName is the registered name of the AnalysisCorrection workflow.
	AnalysisCorrectionName = "AnalysisCorrection"
	// AnalysisWorkflowSlug is the WorkflowSlug search attribute of analysis runs.
	AnalysisWorkflowSlug = "analysis"
	// UpdateAnalysisPassword tells a pipeline waiting in password_required that a new
	// password is stored for it; it answers once the password has been tried.
	UpdateAnalysisPassword = "analysis-password"

	ActivityAcceptAnalysis   = "AcceptAnalysis"
	ActivityInspectAnalysis  = "InspectAnalysis"
	ActivityReadAnalysisText = "ReadAnalysisText"
	ActivityParseAnalysis    = "ParseAnalysis"
	ActivityAnalyzeAnalysis  = "AnalyzeAnalysis"
	ActivityRecordAnalysis   = "RecordAnalysis"
	ActivityFinishAnalysis   = "FinishAnalysis"
	ActivityCorrectAnalysis  = "CorrectAnalysis"
)

// Application error types of the analysis activities.
const (
	// ErrTypeAnalysisUnreadable: a file cannot be processed and retrying cannot change that;
	// the message is safe to show and the details hold the stage.
	ErrTypeAnalysisUnreadable = "AnalysisUnreadable"
	// ErrTypeAnalysisTool: an external program failed or timed out (retried); the message is
	// safe to show and the details hold the stage.
	ErrTypeAnalysisTool = "AnalysisTool"
	// ErrTypeAnalysisFailed is the error a pipeline whose analysis failed ends with.
	ErrTypeAnalysisFailed = "AnalysisFailed"
)

// AnalysisInput starts the pipeline of one stored analysis: ids and counts, never the
// files (activities read them from the blob store) nor the password (sealed in the store).
type AnalysisInput struct {
	AnalysisID  string `json:"analysisId"`
	OrgID       string `json:"orgId"`
	Files       int    `json:"files"`
	ExternalRef string `json:"externalRef,omitempty"`
	ExternalID  string `json:"externalId,omitempty"`
	// PasswordTimeout is how long the pipeline waits for the password of an encrypted PDF
	// (config documents.password_timeout, as for documents).
	PasswordTimeout time.Duration `json:"passwordTimeout"`
}

// AnalysisStartOptions are the options the API starts a pipeline with: workflow id =
// analysis id, the statements queue and the search attributes OrgId, WorkflowSlug
// ("analysis") and ExternalId.
func AnalysisStartOptions(in AnalysisInput) client.StartWorkflowOptions {
	return workflows.ProductStart(in.AnalysisID, workflows.QueueStatements, "bank statement analysis", in.OrgID, AnalysisWorkflowSlug, in.ExternalID)
}

// AnalysisResult is what a pipeline that did not fail returns.
type AnalysisResult struct {
	Status stmt.Status `json:"status"`
	Risk   int         `json:"riskScore"`
}

// AnalysisRef names an analysis: the input of the stage activities, which read its files,
// password and intermediate results from the stores.
type AnalysisRef struct {
	OrgID      string `json:"orgId"`
	AnalysisID string `json:"analysisId"`
}

// InspectResult is what InspectAnalysis learned of the files. A PDF that needs a user
// password it does not have (or has wrong) is not an error: PasswordRequired is set, with
// the message for analysis.password_required.
type InspectResult struct {
	Kinds            []stmt.Kind `json:"kinds"`
	Pages            int         `json:"pages"`
	PasswordRequired bool        `json:"passwordRequired"`
	Message          string      `json:"message,omitempty"`
}

// TextSummary describes the text ReadAnalysisText read from the PDFs: TextKeys[i] is the
// blob key of file i's text ("" for a file that is not a PDF), so that the text, which can
// be large, stays out of the history.
type TextSummary struct {
	TextKeys       []string `json:"textKeys"`
	Pages          int      `json:"pages"`
	OCRPages       int      `json:"ocrPages"`
	MeanConfidence float64  `json:"meanConfidence"`
}

// ParseInput asks for the statements of every file, PDFs from their text.
type ParseInput struct {
	Ref      AnalysisRef `json:"ref"`
	TextKeys []string    `json:"textKeys"`
}

// ParseSummary describes what ParseAnalysis read, kept in the blob store under Key.
type ParseSummary struct {
	Key          string   `json:"key"`
	Banks        []string `json:"banks"`
	Statements   int      `json:"statements"`
	Transactions int      `json:"transactions"`
}

// AnalyzeInput asks for the reconciliation, insights, signals and decision of the parsed
// statements.
type AnalyzeInput struct {
	Ref       AnalysisRef `json:"ref"`
	ParsedKey string      `json:"parsedKey"`
}

// AnalyzeSummary is the decided result, kept in the blob store under Key, with what the
// events say of it.
type AnalyzeSummary struct {
	Key          string      `json:"key"`
	Status       stmt.Status `json:"status"`
	Reasons      []string    `json:"reasons"`
	Statements   int         `json:"statements"`
	Transactions int         `json:"transactions"`
	Reconciled   bool        `json:"reconciled"`
	Risk         int         `json:"riskScore"`
}

// AnalysisRecord is a pipeline write to the analysis (the non-zero fields) with the events
// it publishes.
type AnalysisRecord struct {
	Ref          AnalysisRef `json:"ref"`
	Status       stmt.Status `json:"status,omitempty"`
	FailedStage  stmt.Stage  `json:"failedStage,omitempty"`
	ErrorMessage string      `json:"errorMessage,omitempty"`
	// ForgetPassword clears the stored password (a wrong one, or at the end).
	ForgetPassword bool                          `json:"forgetPassword,omitempty"`
	CompletedAt    *time.Time                    `json:"completedAt,omitempty"`
	Events         []workflows.PublishEventInput `json:"events,omitempty"`
}

// FinishAnalysisInput stores the decided result (version 1) and publishes
// analysis.completed or analysis.requires_review.
type FinishAnalysisInput struct {
	Ref         AnalysisRef                 `json:"ref"`
	ResultKey   string                      `json:"resultKey"`
	CompletedAt time.Time                   `json:"completedAt"`
	Event       workflows.PublishEventInput `json:"event"`
}

// PasswordRetry is the argument of the analysis-password Update. It carries no password:
// the API stores it sealed before it sends the Update.
type PasswordRetry struct {
	ActorUserID string `json:"actorUserId,omitempty"`
}

// PasswordRetryResult is the analysis's status once the password has been tried:
// password_required again when it was wrong, processing when it opened the files.
type PasswordRetryResult struct {
	Status stmt.Status `json:"status"`
}

// CorrectionInput starts an AnalysisCorrection: an analyst's corrections of transactions
// of the analysis's version PreviousVersion, which become version PreviousVersion+1.
type CorrectionInput struct {
	OrgID           string            `json:"orgId"`
	AnalysisID      string            `json:"analysisId"`
	PreviousVersion int               `json:"previousVersion"`
	ActorUserID     string            `json:"actorUserId"`
	Corrections     []stmt.Correction `json:"corrections"`
	CorrectedAt     time.Time         `json:"correctedAt"`
}

// CorrectionWorkflowID is the id of the correction that makes version previous+1: two
// corrections of the same version share it, so only one runs.
func CorrectionWorkflowID(analysisID string, previous int) string {
	return analysisID + "-correction-" + strconv.Itoa(previous+1)
}

// CorrectionStartOptions are the options the API starts a correction with.
func CorrectionStartOptions(in CorrectionInput) client.StartWorkflowOptions {
	o := workflows.ProductStart(CorrectionWorkflowID(in.AnalysisID, in.PreviousVersion), workflows.QueueStatements,
		"correction of "+in.AnalysisID, in.OrgID, AnalysisWorkflowSlug, "")
	o.WorkflowExecutionTimeout = 10 * time.Minute
	return o
}

// CorrectionRecord is the input of the CorrectAnalysis activity: the correction with its
// analysis.corrected event.
type CorrectionRecord struct {
	Correction CorrectionInput             `json:"correction"`
	Event      workflows.PublishEventInput `json:"event"`
}
