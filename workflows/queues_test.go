package workflows_test

import (
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/workflows"
	docwf "github.com/svcplatform/svc/workflows/documents"
	orchwf "github.com/svcplatform/svc/workflows/orchestration"
	hookwf "github.com/svcplatform/svc/workflows/webhooks"
)

// TestStartOptions: every workflow the API or a publisher starts is started once per id
// (ARCHITECTURE 4) on its queue, with its summary and search attributes.
func TestStartOptions(t *testing.T) {
	testInput := orchwf.ExecutionInput{
		ExecutionID: "exe_01jx0000000000000000000000", OrgID: "org_test", WorkflowID: "wkf_test", WorkflowSlug: "payout",
		WorkflowVersion: 2, ExternalID: "ext-1", StartedBy: "usr_drafter",
	}
	docInput := docwf.DocumentInput{DocumentID: "doc_01jx0000000000000000000000", OrgID: "org_test", Filename: "npwp.pdf", ExternalID: "upload-1"}
	corr := docwf.CorrectionInput{OrgID: "org_test", DocumentID: docInput.DocumentID, ExtractionID: "ext_01jx0000000000000000000001"}
	noExt := testInput
	noExt.ExternalID = ""
	tests := []struct {
		name           string
		opts           client.StartWorkflowOptions
		id, queue      string
		summary        string
		attrs          map[string]string // nil: no search attributes
		executionLimit time.Duration
	}{
		{"execution", orchwf.ExecutionStartOptions(testInput), testInput.ExecutionID, workflows.QueueOrchestration, "payout v2 · ext-1",
			map[string]string{"OrgId": "org_test", "WorkflowSlug": "payout", "ExternalId": "ext-1"}, 0},
		{"execution without externalId", orchwf.ExecutionStartOptions(noExt), testInput.ExecutionID, workflows.QueueOrchestration, "payout v2",
			map[string]string{"OrgId": "org_test", "WorkflowSlug": "payout"}, 0},
		{"document", docwf.DocumentStartOptions(docInput), docInput.DocumentID, workflows.QueueDocuments, "document npwp.pdf · upload-1",
			map[string]string{"OrgId": "org_test", "WorkflowSlug": docwf.DocumentWorkflowSlug, "ExternalId": "upload-1"}, 0},
		{"correction", docwf.CorrectionStartOptions(corr), corr.ExtractionID, workflows.QueueDocuments, "correction of " + docInput.DocumentID,
			map[string]string{"OrgId": "org_test", "WorkflowSlug": docwf.DocumentWorkflowSlug}, 10 * time.Minute},
		{"webhook delivery", hookwf.WebhookDeliveryStartOptions("whd_9"), "whd_9", workflows.QueueWebhooks, "webhook delivery whd_9", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			if o.ID != tt.id || o.TaskQueue != tt.queue || o.StaticSummary != tt.summary || o.WorkflowExecutionTimeout != tt.executionLimit {
				t.Errorf("options = %+v", o)
			}
			if o.WorkflowIDConflictPolicy != enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING ||
				o.WorkflowIDReusePolicy != enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE {
				t.Errorf("policies = %v, %v", o.WorkflowIDConflictPolicy, o.WorkflowIDReusePolicy)
			}
			got := map[string]string{}
			for key, v := range o.TypedSearchAttributes.GetUntypedValues() {
				got[key.GetName()], _ = v.(string)
			}
			if len(got) != len(tt.attrs) {
				t.Errorf("search attributes %v, want %v", got, tt.attrs)
			}
			for k, want := range tt.attrs {
				if got[k] != want {
					t.Errorf("search attribute %s = %q, want %q", k, got[k], want)
				}
			}
		})
	}
}
