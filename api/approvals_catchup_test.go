package api_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	orchwf "github.com/svcplatform/svc/workflows/orchestration"
)

// laggingRun is a run that learns of its pending approval only after unknown resolve Updates,
// as a run replaying on another worker after its workflow task was lost; then it decides the
// approval as the workflow's bookkeeping would.
type laggingRun struct {
	client.Client
	st      *store.Store
	org     string
	unknown int
	mu      sync.Mutex
	tries   int
}

func (r *laggingRun) UpdateWorkflow(ctx context.Context, o client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tries++
	if r.tries <= r.unknown {
		return resolveAnswer{err: workflows.RejectUpdate(workflows.ErrTypeNotFound, "approval not found")}, nil
	}
	req := o.Args[0].(orchwf.ResolveApprovalRequest)
	a, err := r.st.Orchestration.GetApproval(ctx, r.org, req.ApprovalID)
	if err != nil {
		return nil, err
	}
	return resolveAnswer{}, r.st.Orchestration.DecideApproval(ctx, a.OrgID, a.ID, store.ApprovalEnd{
		Status: orchestration.ApprovalApproved, DecidedBy: req.ActorUserID, DecidedAt: time.Now()})
}

type resolveAnswer struct{ err error }

func (resolveAnswer) WorkflowID() string               { return "" }
func (resolveAnswer) RunID() string                    { return "" }
func (resolveAnswer) UpdateID() string                 { return "" }
func (a resolveAnswer) Get(context.Context, any) error { return a.err }

// A decision on a stored pending approval that its run does not know yet (its workflow task
// was lost and is running again) is sent again until the run knows it, and succeeds.
func TestApprovalDecisionWaitsForTheRunToCatchUp(t *testing.T) {
	run := &laggingRun{unknown: 2}
	h := apitest.New(t, apitest.Options{Temporal: run})
	run.st, run.org = h.Store, h.Org.ID
	h.NoRateLimits(h.Org.ID)
	a := newApproval(t, h, newExecution(t, h, h.Org.ID, orchestration.ExecutionRunning), "role:admin")
	bound, _ := h.KeyWith(apitest.KeySpec{Scopes: []string{"approvals:write"}, ActAsUserID: h.Admin.ID})
	res := h.Do("POST", "/api/approvals/"+a.ID+"/approve", bound, map[string]any{})
	wantStatus(t, res, 200)
	if res.Data()["status"] != "approved" || run.tries != 3 {
		t.Fatalf("after %d tries: %s", run.tries, res.Body)
	}
}
