// Package workflows holds what every product's Temporal workflows share: the task queues,
// the search attributes, idempotent starts, publishing events and the Update errors. Each
// product's workflows live in workflows/<product>. Workflow code is deterministic: no
// time.Now, no goroutines, no I/O, no map iteration order; side effects live in activities.
package workflows

import (
	"errors"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// Task queues the worker polls.
const (
	QueueOrchestration = "orchestration"
	QueueDocuments     = "documents"
	QueueWebhooks      = "webhooks"
	// QueueDocumentsText runs only the documents' text stage (OCR is CPU-bound): the worker
	// takes about one of its activities per core.
	QueueDocumentsText = "documents-text"
	// QueueIdentity runs the identity verifications (their documents are read on QueueDocumentsText).
	QueueIdentity = "identity"
	// QueueFraud runs the fraud product's backtests (never its decisions: those are the fast path).
	QueueFraud = "fraud"
	// QueueAutomation runs the built-in AI automations (the ai node's model step runs on the
	// orchestration queue with its execution).
	QueueAutomation = "automation"
	// QueueCases runs the cases product: one workflow per case, the gathering of alerts and the
	// SAR submissions.
	QueueCases = "cases"
	// QueueScreening runs the screening product's list refreshes and monitoring rescreens
	// (never a screening itself: that is the API's fast path).
	QueueScreening = "screening"
	// QueueStatements runs the bank statement analyses (their PDFs' text is read on
	// QueueDocumentsText, beside the documents' text stage).
	QueueStatements = "statements"
	// QueueMaintenance runs the platform's housekeeping (retention) started by Schedules.
	QueueMaintenance = "maintenance"
)

// Queues lists every task queue.
var Queues = []string{QueueOrchestration, QueueDocuments, QueueDocumentsText, QueueWebhooks, QueueIdentity, QueueFraud, QueueAutomation, QueueCases, QueueScreening, QueueStatements, QueueMaintenance}

// Custom search attributes (all Keyword), registered on the namespace so operators can find any run
// in the Temporal UI by organisation, product workflow and the caller's externalId.
var (
	AttrOrgID        = temporal.NewSearchAttributeKeyKeyword("OrgId")
	AttrWorkflowSlug = temporal.NewSearchAttributeKeyKeyword("WorkflowSlug")
	AttrExternalID   = temporal.NewSearchAttributeKeyKeyword("ExternalId")
)

// SearchAttributeNames lists the custom search attributes' names.
var SearchAttributeNames = []string{"OrgId", "WorkflowSlug", "ExternalId"}

// StartOnce are the options of an idempotent start (ARCHITECTURE 4): workflow id = id on
// queue, and a second start of the same id returns the existing run (running) or is
// rejected as a duplicate (finished).
func StartOnce(id, queue, summary string, attrs ...temporal.SearchAttributeUpdate) client.StartWorkflowOptions {
	o := client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                queue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		StaticSummary:            summary,
	}
	if len(attrs) > 0 {
		o.TypedSearchAttributes = temporal.NewSearchAttributes(attrs...)
	}
	return o
}

// AlreadyStarted reports whether a StartOnce start was refused because a run with its id
// already ran (its id is never reused): an earlier try of the same start made it, which is
// what the caller wanted.
func AlreadyStarted(err error) bool {
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	return errors.As(err, &started)
}

// ProductStart is StartOnce for a product's run, found by the search attributes OrgId,
// WorkflowSlug and, when the caller gave one, ExternalId, which then also ends the summary.
func ProductStart(id, queue, summary, orgID, slug, externalID string) client.StartWorkflowOptions {
	attrs := []temporal.SearchAttributeUpdate{AttrOrgID.ValueSet(orgID), AttrWorkflowSlug.ValueSet(slug)}
	if externalID != "" {
		attrs = append(attrs, AttrExternalID.ValueSet(externalID))
		summary += " · " + externalID
	}
	return StartOnce(id, queue, summary, attrs...)
}
