// Package events is the one catalog of the events the service publishes (SPEC 6.4, 6.5,
// the bank statement product's analysis events and webhook.test): their names, products
// and data keys, and the envelope every webhook body carries (SPEC 2.2).
package events

import (
	"sort"

	"github.com/svcplatform/svc/webhook"
)

// Product is the product an event belongs to; it picks the product header prefix.
type Product string

// Products that publish events.
const (
	// Orchestration is the workflow orchestration product (X-Orch- headers).
	Orchestration Product = "orchestration"
	// Documents is the document intelligence product (X-DocInt- headers).
	Documents Product = "documents"
	// Identity is the identity verification product (X-Identity- headers).
	Identity Product = "identity"
	// Statements is the bank statement analysis product (X-BankStatement- headers).
	Statements Product = "statements"
	// Automation is the AI automation product (unified headers only).
	Automation Product = "automation"
	// Platform marks events of the webhook platform itself (webhook.test); they are
	// sent with every product prefix so a receiver that checks any one of them can
	// test its endpoint.
	Platform Product = "platform"
	// Fraud is the anti-fraud product (unified headers only).
	Fraud Product = "fraud"
	// Cases is the case manager and its SAR filings (unified headers only).
	Cases Product = "cases"
	// Screening is the AML screening product (unified headers only).
	Screening Product = "screening"
)

// HeaderPrefixes returns the product header prefixes a delivery of this product
// carries in addition to the unified X-Service- set.
func (p Product) HeaderPrefixes() []string {
	switch p {
	case Orchestration:
		return []string{webhook.OrchPrefix}
	case Documents:
		return []string{webhook.DocIntPrefix}
	case Identity:
		return []string{webhook.IdentityPrefix}
	case Statements:
		return []string{webhook.BankStatementPrefix}
	case Platform:
		return webhook.ProductPrefixes()
	}
	return nil
}

// Kind is the JSON type a data key's value must have.
type Kind int

// Kinds of data values.
const (
	// Any accepts every JSON value.
	Any Kind = iota
	// String is a JSON string.
	String
	// Number is a JSON number.
	Number
	// Integer is a JSON number without a fractional part.
	Integer
	// Object is a JSON object.
	Object
	// Array is a JSON array.
	Array
	// Bool is a JSON boolean.
	Bool
)

// String names the kind as in error messages.
func (k Kind) String() string {
	return [...]string{"any", "string", "number", "integer", "object", "array", "boolean"}[k]
}

// Key is one key of an event's data object. Every catalog key is present in
// every event of that name; Nullable keys may carry null (for example an
// externalId the caller did not give).
type Key struct {
	Name     string
	Kind     Kind
	Nullable bool
}

// Def describes one event name.
type Def struct {
	// Name is the event name, e.g. "document.extracted".
	Name string
	// Product is the product that publishes it.
	Product Product
	// Keys are the keys of its data object, in catalog order.
	Keys []Key
	// OffByDefault events reach only subscriptions that name them explicitly
	// (workflow.step.completed, which is high volume).
	OffByDefault bool
}

// Event names, one constant per catalog entry.
const (
	WorkflowExecutionStarted     = "workflow.execution.started"
	WorkflowExecutionCompleted   = "workflow.execution.completed"
	WorkflowExecutionFailed      = "workflow.execution.failed"
	WorkflowExecutionCancelled   = "workflow.execution.cancelled"
	WorkflowStepCompleted        = "workflow.step.completed"
	WorkflowStepFailed           = "workflow.step.failed"
	WorkflowHumanApprovalPending = "workflow.human_approval_pending"
	AutomationCompleted          = "automation.completed"
	AutomationFailed             = "automation.failed"
	AutomationBudgetExceeded     = "automation.budget_exceeded"
	DocumentUploaded             = "document.uploaded"
	DocumentClassified           = "document.classified"
	DocumentExtracted            = "document.extracted"
	DocumentRequiresReview       = "document.requires_review"
	DocumentPasswordRequired     = "document.password_required"
	DocumentFailed               = "document.failed"
	ExtractionCorrected          = "extraction.corrected"
	TemplateMatched              = "template.matched"
	AnalysisCompleted            = "analysis.completed"
	AnalysisRequiresReview       = "analysis.requires_review"
	AnalysisFailed               = "analysis.failed"
	AnalysisPasswordRequired     = "analysis.password_required"
	AnalysisCorrected            = "analysis.corrected"
	WebhookTest                  = "webhook.test"

	IdentityVerificationVerified              = "identity.verification.verified"
	IdentityVerificationRejected              = "identity.verification.rejected"
	IdentityVerificationReview                = "identity.verification.review"
	IdentityVerificationResubmissionRequested = "identity.verification.resubmission_requested"
	IdentityVerificationExpired               = "identity.verification.expired"
	IdentityAttemptCompleted                  = "identity.attempt.completed"
	FraudDecisionReview                       = "fraud.decision.review"
	FraudDecisionDeclined                     = "fraud.decision.declined"
	FraudRuleSetPublished                     = "fraud.ruleset.published"
	FraudBacktestCompleted                    = "fraud.backtest.completed"
	CaseCreated                               = "case.created"
	CaseAssigned                              = "case.assigned"
	CaseEscalated                             = "case.escalated"
	CaseOverdue                               = "case.overdue"
	CaseClosed                                = "case.closed"
	SARSubmitted                              = "sar.submitted"
	SARAcknowledged                           = "sar.acknowledged"
	SARRejected                               = "sar.rejected"
	ScreeningCompleted                        = "screening.completed"
	ScreeningAlertRaised                      = "screening.alert_raised"
	ScreeningListUpdated                      = "screening.list_updated"
)

// IdentityVerificationEvent is the event announcing that a verification reached status;
// false for a state without one (requires_input, processing).
func IdentityVerificationEvent(status string) (string, bool) {
	name := "identity.verification." + status
	d, ok := byName[name]
	return name, ok && d.Product == Identity
}

// identityVerificationKeys are the data keys of every identity.verification.* event:
// reasons are the decision's reason codes, decision the reviewer's when one decided.
func identityVerificationKeys() []Key {
	return []Key{str("verificationId"), str("status"), {Name: "reasons", Kind: Array}, strNull("attemptId"),
		strNull("customerId"), strNull("reference"), strNull("externalId"), strNull("decision")}
}

func str(name string) Key     { return Key{Name: name, Kind: String} }
func strNull(name string) Key { return Key{Name: name, Kind: String, Nullable: true} }
func num(name string) Key     { return Key{Name: name, Kind: Number} }
func obj(name string) Key     { return Key{Name: name, Kind: Object} }
func anyNull(name string) Key { return Key{Name: name, Kind: Any, Nullable: true} }

// catalog holds every event. Kinds follow the types SPEC 6.4/6.5 state
// (workflowVersion integer, confidenceScore number, fields and data objects);
// for the others: ids, names, messages and timestamps are strings, the rest any JSON.
var catalog = []Def{
	{Name: WorkflowExecutionStarted, Product: Orchestration, Keys: []Key{
		str("executionId"), str("workflowId"), str("workflowSlug"), obj("inputs"), strNull("externalId"),
	}},
	{Name: WorkflowExecutionCompleted, Product: Orchestration, Keys: []Key{
		str("executionId"), str("workflowSlug"), str("status"), anyNull("output"), str("completedAt"),
		str("workflowId"), {Name: "workflowVersion", Kind: Integer}, strNull("externalId"),
	}},
	{Name: WorkflowExecutionFailed, Product: Orchestration, Keys: []Key{
		str("executionId"), str("workflowSlug"), strNull("failedStepId"), str("errorMessage"),
	}},
	{Name: WorkflowExecutionCancelled, Product: Orchestration, Keys: []Key{
		str("executionId"), str("workflowSlug"), strNull("reason"), strNull("actorUserId"),
	}},
	{Name: WorkflowStepCompleted, Product: Orchestration, OffByDefault: true, Keys: []Key{
		str("executionId"), str("stepId"), str("nodeId"), anyNull("output"),
	}},
	{Name: WorkflowStepFailed, Product: Orchestration, Keys: []Key{
		str("executionId"), str("stepId"), str("nodeId"), str("errorMessage"), {Name: "attempts", Kind: Integer},
	}},
	{Name: WorkflowHumanApprovalPending, Product: Orchestration, Keys: []Key{
		str("executionId"), str("workflowSlug"), str("stepId"), str("actionLabel"), anyNull("assignTo"), obj("data"),
	}},
	{Name: DocumentUploaded, Product: Documents, Keys: []Key{
		str("documentId"), strNull("type"), str("filename"), str("sha256"), strNull("externalRef"),
	}},
	{Name: DocumentClassified, Product: Documents, Keys: []Key{
		str("documentId"), str("type"), num("classificationConfidence"),
	}},
	{Name: DocumentExtracted, Product: Documents, Keys: []Key{
		str("documentId"), str("extractionId"), str("type"), num("confidenceScore"), obj("fields"),
	}},
	{Name: DocumentRequiresReview, Product: Documents, Keys: []Key{
		str("documentId"), str("extractionId"), num("confidenceScore"), anyNull("flags"),
	}},
	{Name: DocumentPasswordRequired, Product: Documents, Keys: []Key{
		str("documentId"), str("errorMessage"),
	}},
	{Name: DocumentFailed, Product: Documents, Keys: []Key{
		str("documentId"), str("errorMessage"), str("stage"),
	}},
	{Name: ExtractionCorrected, Product: Documents, Keys: []Key{
		str("documentId"), str("extractionId"), str("actorUserId"), str("previousExtractionId"),
	}},
	{Name: TemplateMatched, Product: Documents, Keys: []Key{
		str("documentId"), str("templateId"), num("matchConfidence"),
	}},
	{Name: IdentityVerificationVerified, Product: Identity, Keys: identityVerificationKeys()},
	{Name: IdentityVerificationRejected, Product: Identity, Keys: identityVerificationKeys()},
	{Name: IdentityVerificationReview, Product: Identity, Keys: identityVerificationKeys()},
	{Name: IdentityVerificationResubmissionRequested, Product: Identity, Keys: identityVerificationKeys()},
	{Name: IdentityVerificationExpired, Product: Identity, Keys: identityVerificationKeys()},
	{Name: IdentityAttemptCompleted, Product: Identity, Keys: []Key{
		str("attemptId"), str("verificationId"), {Name: "number", Kind: Integer}, str("status"), str("outcome"),
		{Name: "reasons", Kind: Array}, {Name: "checks", Kind: Array}, strNull("customerId"),
	}},
	{Name: AnalysisCompleted, Product: Statements, Keys: []Key{
		str("analysisId"), str("status"), {Name: "version", Kind: Integer}, {Name: "statements", Kind: Integer},
		{Name: "transactions", Kind: Integer}, {Name: "reconciled", Kind: Bool}, {Name: "riskScore", Kind: Integer}, strNull("externalRef"),
	}},
	{Name: AnalysisRequiresReview, Product: Statements, Keys: []Key{
		str("analysisId"), str("status"), {Name: "version", Kind: Integer}, {Name: "statements", Kind: Integer},
		{Name: "transactions", Kind: Integer}, {Name: "reconciled", Kind: Bool}, {Name: "riskScore", Kind: Integer},
		{Name: "reasons", Kind: Array}, strNull("externalRef"),
	}},
	{Name: AnalysisFailed, Product: Statements, Keys: []Key{
		str("analysisId"), str("errorMessage"), str("stage"), strNull("externalRef"),
	}},
	{Name: AnalysisPasswordRequired, Product: Statements, Keys: []Key{
		str("analysisId"), str("errorMessage"), strNull("externalRef"),
	}},
	{Name: AnalysisCorrected, Product: Statements, Keys: []Key{
		str("analysisId"), {Name: "version", Kind: Integer}, {Name: "previousVersion", Kind: Integer}, str("actorUserId"),
	}},
	{Name: AutomationCompleted, Product: Automation, Keys: []Key{
		str("automationId"), str("kind"), str("subjectId"), strNull("resultStatus"), str("model"),
		{Name: "totalTokens", Kind: Integer}, strNull("externalId"),
	}},
	{Name: AutomationFailed, Product: Automation, Keys: []Key{
		str("automationId"), str("kind"), str("subjectId"), str("errorMessage"), strNull("externalId"),
	}},
	{Name: AutomationBudgetExceeded, Product: Automation, Keys: []Key{
		str("day"), {Name: "usedTokens", Kind: Integer}, {Name: "dailyTokens", Kind: Integer},
	}},
	{Name: WebhookTest, Product: Platform, Keys: []Key{
		str("source"),
	}},
	// Fraud: a decision that needs a person (review, block_and_review) or was declined, on the
	// fast path after its transaction commits; a rule set version published; a backtest done.
	{Name: FraudDecisionReview, Product: Fraud, Keys: fraudDecisionKeys},
	{Name: FraudDecisionDeclined, Product: Fraud, Keys: fraudDecisionKeys},
	{Name: FraudRuleSetPublished, Product: Fraud, Keys: []Key{
		str("ruleSetId"), {Name: "version", Kind: Integer}, str("appliesTo"), str("publishedBy"),
	}},
	{Name: FraudBacktestCompleted, Product: Fraud, Keys: []Key{
		str("backtestId"), str("ruleSetId"), {Name: "version", Kind: Integer}, {Name: "evaluated", Kind: Integer}, {Name: "changed", Kind: Integer},
	}},
	// Cases: a case's lifecycle (the case workflow publishes them) and a SAR filing's submission.
	{Name: CaseCreated, Product: Cases, Keys: []Key{
		str("caseId"), str("title"), strNull("customerId"), str("priority"), {Name: "alertIds", Kind: Array}, strNull("createdBy"),
	}},
	{Name: CaseAssigned, Product: Cases, Keys: []Key{str("caseId"), str("assigneeId"), str("assignedBy"), str("status")}},
	{Name: CaseEscalated, Product: Cases, Keys: []Key{str("caseId"), strNull("escalatedBy"), str("reason")}},
	{Name: CaseOverdue, Product: Cases, Keys: []Key{str("caseId"), str("dueAt"), str("status")}},
	{Name: CaseClosed, Product: Cases, Keys: []Key{
		str("caseId"), str("outcome"), str("rationale"), str("proposedBy"), str("approvedBy"),
	}},
	{Name: SARSubmitted, Product: Cases, Keys: sarKeys},
	{Name: SARAcknowledged, Product: Cases, Keys: append(sarKeys[:len(sarKeys):len(sarKeys)], strNull("reference"))},
	{Name: SARRejected, Product: Cases, Keys: append(sarKeys[:len(sarKeys):len(sarKeys)], str("reason"))},
	{Name: ScreeningCompleted, Product: Screening, Keys: []Key{
		str("screeningId"), strNull("customerId"), str("status"), {Name: "hitCount", Kind: Integer},
	}},
	{Name: ScreeningAlertRaised, Product: Screening, Keys: []Key{
		str("alertId"), strNull("customerId"), str("screeningId"), str("entityId"), num("score"),
	}},
	{Name: ScreeningListUpdated, Product: Screening, Keys: []Key{
		str("listId"), {Name: "version", Kind: Integer}, {Name: "added", Kind: Integer}, {Name: "changed", Kind: Integer}, {Name: "removed", Kind: Integer},
	}},
}

// sarKeys are the data keys every SAR filing event has.
var sarKeys = []Key{str("filingId"), str("caseId"), str("filedById"), str("submittedById")}

// fraudDecisionKeys are the data keys of the fraud decision events.
var fraudDecisionKeys = []Key{
	str("decisionId"), str("outcome"), {Name: "score", Kind: Integer}, {Name: "reasonCodes", Kind: Array},
	str("customerId"), strNull("transactionId"), strNull("externalId"),
}

var byName = func() map[string]Def {
	m := make(map[string]Def, len(catalog))
	for _, d := range catalog {
		m[d.Name] = d
	}
	return m
}()

// Lookup returns the definition of an event name.
func Lookup(name string) (Def, bool) {
	d, ok := byName[name]
	if !ok {
		return Def{}, false
	}
	d.Keys = append([]Key(nil), d.Keys...)
	return d, true
}

// Names returns every event name, sorted.
func Names() []string {
	names := make([]string, 0, len(catalog))
	for _, d := range catalog {
		names = append(names, d.Name)
	}
	sort.Strings(names)
	return names
}

// All is the wildcard a subscription may name to receive every event that is
// not OffByDefault.
const All = "*"

// Wants reports whether a subscription naming the given events receives an
// event called name: it does when it names the event, or names All and the
// event is not OffByDefault. Unknown event names never match. webhook.test is
// sent to one subscription on request, whatever it names, and does not go
// through Wants.
func Wants(subscribed []string, name string) bool {
	d, ok := byName[name]
	if !ok {
		return false
	}
	for _, s := range subscribed {
		if s == name || (s == All && !d.OffByDefault) {
			return true
		}
	}
	return false
}

// Subscribable reports whether a subscription may name this string in its
// events: a catalog event name or All.
func Subscribable(name string) bool {
	if name == All {
		return true
	}
	_, ok := byName[name]
	return ok
}
