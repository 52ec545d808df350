// Package workflows holds svc's Temporal workflow definitions. Code here is deterministic:
// no time.Now, no goroutines, no I/O, no map iteration order; side effects live in activities.
package workflows

import "go.temporal.io/sdk/temporal"

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
