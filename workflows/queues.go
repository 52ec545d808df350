// Package workflows holds svc's Temporal workflow definitions. Code here is deterministic:
// no time.Now, no goroutines, no I/O, no map iteration order; side effects live in activities.
package workflows

import (
	enumspb "go.temporal.io/api/enums/v1"
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
)

// Queues lists every task queue.
var Queues = []string{QueueOrchestration, QueueDocuments, QueueDocumentsText, QueueWebhooks}

// Custom search attributes (all Keyword), registered on the namespace so operators can find any run
// in the Temporal UI by organisation, product workflow and the caller's externalId.
var (
	AttrOrgID        = temporal.NewSearchAttributeKeyKeyword("OrgId")
	AttrWorkflowSlug = temporal.NewSearchAttributeKeyKeyword("WorkflowSlug")
	AttrExternalID   = temporal.NewSearchAttributeKeyKeyword("ExternalId")
)

// SearchAttributeNames lists the custom search attributes' names.
var SearchAttributeNames = []string{"OrgId", "WorkflowSlug", "ExternalId"}

// startOnce are the options of an idempotent start (ARCHITECTURE 4): workflow id = id on
// queue, and a second start of the same id returns the existing run (running) or is
// rejected as a duplicate (finished).
func startOnce(id, queue, summary string, attrs ...temporal.SearchAttributeUpdate) client.StartWorkflowOptions {
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

// productStart is startOnce for a product's run, found by the search attributes OrgId,
// WorkflowSlug and, when the caller gave one, ExternalId, which then also ends the summary.
func productStart(id, queue, summary, orgID, slug, externalID string) client.StartWorkflowOptions {
	attrs := []temporal.SearchAttributeUpdate{AttrOrgID.ValueSet(orgID), AttrWorkflowSlug.ValueSet(slug)}
	if externalID != "" {
		attrs = append(attrs, AttrExternalID.ValueSet(externalID))
		summary += " · " + externalID
	}
	return startOnce(id, queue, summary, attrs...)
}
