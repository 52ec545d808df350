package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	"github.com/svcplatform/svc/webhook"
)

// The store's conditional writes move rows only along the transition tables: these tests
// put a row in every state, try every move the store can make, and check that exactly the
// moves the table allows happen (a refused one changes nothing).

func wantMove(t *testing.T, table string, from, to, got string, allowed bool) {
	t.Helper()
	if want := map[bool]string{true: to, false: from}[allowed]; got != want {
		t.Errorf("%s %s → %s: the row is %s, want %s (allowed: %t)", table, from, to, got, want, allowed)
	}
}

func TestExecutionAndApprovalWritesFollowTheirTables(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := newOrg(t, s)
		now := time.Now().UTC()
		for _, p := range orchestration.Executions.Pairs() {
			if p.To == string(orchestration.ExecutionPending) {
				continue // only creation makes a pending execution
			}
			e := &store.Execution{ID: ids.New(ids.Execution), OrgID: org, WorkflowID: "wkf_1", WorkflowSlug: "w", WorkflowVersion: 1, Status: orchestration.ExecutionStatus(p.From)}
			if err := s.DB.Create(e).Error; err != nil {
				t.Fatal(err)
			}
			var err error
			if p.To == string(orchestration.ExecutionRunning) {
				err = s.Orchestration.MarkExecutionRunning(ctx, e, now)
			} else {
				err = s.Orchestration.FinishExecution(ctx, org, e.ID, store.ExecutionEnd{Status: orchestration.ExecutionStatus(p.To), CompletedAt: now})
			}
			if err != nil {
				t.Fatalf("execution %s → %s: %v", p.From, p.To, err)
			}
			got, err := s.Orchestration.GetExecution(ctx, org, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			wantMove(t, "execution", p.From, p.To, string(got.Status), p.Allowed)
		}
		for i, p := range orchestration.Approvals.Pairs() {
			if p.To == string(orchestration.ApprovalPending) {
				continue
			}
			a := &store.Approval{ID: ids.New(ids.Approval), OrgID: org, ExecutionID: "exe_1", StepID: fmt.Sprintf("stp_%d", i),
				NodeID: "n", ActionLabel: "ok?", AssignTo: "reviewer", Status: orchestration.ApprovalStatus(p.From)}
			if err := s.DB.Create(a).Error; err != nil {
				t.Fatal(err)
			}
			if err := s.Orchestration.DecideApproval(ctx, org, a.ID, store.ApprovalEnd{Status: orchestration.ApprovalStatus(p.To), DecidedBy: "usr_1", DecidedAt: now}); err != nil {
				t.Fatalf("approval %s → %s: %v", p.From, p.To, err)
			}
			var got store.Approval
			if err := s.DB.Where("id = ?", a.ID).Take(&got).Error; err != nil {
				t.Fatal(err)
			}
			wantMove(t, "approval", p.From, p.To, string(got.Status), p.Allowed)
		}
	})
}

func TestDocumentWritesFollowTheLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := newOrg(t, s)
		pipeline := map[string]bool{"uploaded": true, "processing": true, "password_required": true}
		for _, p := range docintel.Lifecycle.Pairs() {
			d := &store.Document{ID: ids.New(ids.Document), OrgID: org, Status: p.From, Filename: "f.pdf", Format: "pdf", SHA256: "ab", BlobKey: "k"}
			if err := s.DB.Create(d).Error; err != nil {
				t.Fatal(err)
			}
			if pipeline[p.From] {
				// The pipeline's writes.
				if err := s.Documents.Update(ctx, org, d.ID, store.DocumentUpdate{Status: docintel.Status(p.To)}); err != nil {
					t.Fatal(err)
				}
			} else {
				// An analyst's correction of an ended document.
				prev := &store.Extraction{ID: ids.New(ids.Extraction), OrgID: org, DocumentID: d.ID, Type: "npwp", Source: "ocr", Status: p.From}
				if err := s.DB.Create(prev).Error; err != nil {
					t.Fatal(err)
				}
				if err := s.DB.Model(d).Update("latest_extraction_id", prev.ID).Error; err != nil {
					t.Fatal(err)
				}
				x := &store.Extraction{ID: ids.New(ids.Extraction), OrgID: org, DocumentID: d.ID, Type: "npwp", Source: "correction",
					Status: p.To, PreviousExtractionID: prev.ID}
				err := s.Documents.Correct(ctx, x)
				if _, refused := err.(*store.StateError); err != nil && (!refused || p.Allowed) {
					t.Fatalf("correct %s → %s: %v", p.From, p.To, err)
				}
			}
			got, err := s.Documents.Get(ctx, org, d.ID)
			if err != nil {
				t.Fatal(err)
			}
			wantMove(t, "document", p.From, p.To, got.Status, p.Allowed)
		}
	})
}

func TestDeliveryWritesFollowTheirTable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := newOrg(t, s)
		for _, p := range webhook.Deliveries.Pairs() {
			if p.To == string(webhook.StatusPending) {
				continue // only creation makes a pending delivery
			}
			d := &store.Delivery{ID: ids.New(ids.Delivery), OrgID: org, SubscriptionID: "whk_1", EventID: "evt_1", EventName: "x",
				Status: webhook.DeliveryStatus(p.From)}
			if err := s.DB.Create(d).Error; err != nil {
				t.Fatal(err)
			}
			var err error
			if p.To == string(webhook.StatusDropped) {
				err = s.Webhooks.DropDelivery(ctx, org, d.ID, "gone")
			} else {
				next := time.Now().Add(time.Minute)
				err = s.Webhooks.RecordAttempt(ctx, store.DeliveryAttempt{DeliveryID: d.ID, Attempt: 1, OrgID: org, AttemptedAt: time.Now()},
					webhook.DeliveryStatus(p.To), &next)
			}
			if err != nil {
				t.Fatalf("delivery %s → %s: %v", p.From, p.To, err)
			}
			var got store.Delivery
			if err := s.DB.Where("id = ?", d.ID).Take(&got).Error; err != nil {
				t.Fatal(err)
			}
			wantMove(t, "delivery", p.From, p.To, string(got.Status), p.Allowed)
		}
	})
}
