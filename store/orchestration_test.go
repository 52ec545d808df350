package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

const testDefinition = `{"nodes": [{"id": "a", "kind": "delay", "config": {"duration": "1s"}}]}`

func TestWorkflowsAndVersions(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org, other := newOrg(t, s), newOrg(t, s)
		w, v1, err := s.Orchestration.CreateWorkflow(ctx, org, "payout", "Payout", testDefinition, "usr_1")
		if err != nil {
			t.Fatal(err)
		}
		if !ids.Valid(ids.Workflow, w.ID) || w.LatestVersion != 1 || v1.Version != 1 || v1.WorkflowID != w.ID {
			t.Fatalf("workflow %+v version %+v", w, v1)
		}
		if _, _, err := s.Orchestration.CreateWorkflow(ctx, org, "payout", "Again", testDefinition, "usr_1"); !errors.Is(err, store.ErrSlugTaken) {
			t.Errorf("same slug: err = %v, want ErrSlugTaken", err)
		}
		if _, _, err := s.Orchestration.CreateWorkflow(ctx, other, "payout", "Theirs", testDefinition, "usr_2"); err != nil {
			t.Errorf("another organisation's slug: %v", err)
		}
		for _, key := range []string{w.ID, "payout"} {
			got, err := s.Orchestration.GetWorkflow(ctx, org, key)
			if err != nil || got.ID != w.ID {
				t.Errorf("GetWorkflow(%q) = %+v, %v", key, got, err)
			}
		}
		if _, err := s.Orchestration.GetWorkflow(ctx, other, w.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another organisation reads it: %v", err)
		}

		v2def := `{"nodes": [{"id": "b", "kind": "delay", "config": {"duration": "2s"}}]}`
		v2, err := s.Orchestration.AddWorkflowVersion(ctx, org, w.ID, v2def, "usr_1")
		if err != nil || v2.Version != 2 {
			t.Fatalf("AddWorkflowVersion = %+v, %v", v2, err)
		}
		if _, err := s.Orchestration.AddWorkflowVersion(ctx, other, w.ID, v2def, "usr_2"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another organisation adds a version: %v", err)
		}
		got1, err := s.Orchestration.GetWorkflowVersion(ctx, org, w.ID, 1)
		if err != nil || got1.Definition != testDefinition {
			t.Errorf("version 1 = %+v, %v", got1, err)
		}
		if got, _ := s.Orchestration.GetWorkflow(ctx, org, w.ID); got.LatestVersion != 2 {
			t.Errorf("LatestVersion = %d, want 2", got.LatestVersion)
		}
		if _, err := s.Orchestration.GetWorkflowVersion(ctx, org, w.ID, 3); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("version 3: %v", err)
		}
	})
}

func TestExecutionLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org, other := newOrg(t, s), newOrg(t, s)
		e := &store.Execution{ID: ids.New(ids.Execution), OrgID: org, WorkflowID: "wkf_x", WorkflowSlug: "payout", WorkflowVersion: 1,
			Inputs: map[string]any{"amount": 12.5, "tags": []any{"a"}}, ExternalID: "ext-1", StartedBy: "usr_1"}
		if err := s.Orchestration.CreateExecution(ctx, e); err != nil {
			t.Fatal(err)
		}
		started := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		e.RunID = "run-1"        // the activity knows the Temporal run
		for i := 0; i < 2; i++ { // an activity may run twice
			if err := s.Orchestration.MarkExecutionRunning(ctx, e, started.Add(time.Duration(i)*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Orchestration.GetExecution(ctx, org, e.ID)
		if err != nil || got.Status != orchestration.ExecutionRunning || got.StartedAt == nil || !got.StartedAt.Equal(started) || got.RunID != "run-1" {
			t.Fatalf("after MarkExecutionRunning: %+v, %v", got, err)
		}
		if b, _ := json.Marshal(got.Inputs); string(b) != `{"amount":12.5,"tags":["a"]}` {
			t.Errorf("inputs = %s", b)
		}
		done := started.Add(time.Hour)
		output := map[string]any{"paid": true, "n": 3.0}
		if err := s.Orchestration.FinishExecution(ctx, org, e.ID, store.ExecutionEnd{Status: orchestration.ExecutionSucceeded, Output: output, CompletedAt: done}); err != nil {
			t.Fatal(err)
		}
		// A late or repeated terminal write does not change a finished execution.
		if err := s.Orchestration.FinishExecution(ctx, org, e.ID, store.ExecutionEnd{Status: orchestration.ExecutionFailed, ErrorMessage: "late", CompletedAt: done.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Orchestration.MarkExecutionRunning(ctx, e, done); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Orchestration.GetExecution(ctx, org, e.ID)
		if b, _ := json.Marshal(got.Output); got.Status != orchestration.ExecutionSucceeded || string(b) != `{"n":3,"paid":true}` ||
			got.ErrorMessage != "" || !got.CompletedAt.Equal(done) {
			t.Errorf("finished execution = %+v (output %s)", got, b)
		}
		if _, err := s.Orchestration.GetExecution(ctx, other, e.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another organisation reads it: %v", err)
		}
		if err := s.Orchestration.FinishExecution(ctx, org, e.ID, store.ExecutionEnd{Status: orchestration.ExecutionRunning}); err == nil {
			t.Error("FinishExecution accepted a non-terminal state")
		}

		// A run started directly on Temporal has no row yet: MarkExecutionRunning stores it.
		direct := &store.Execution{ID: ids.New(ids.Execution), OrgID: org, WorkflowID: "wkf_x", WorkflowSlug: "payout", WorkflowVersion: 1}
		if err := s.Orchestration.MarkExecutionRunning(ctx, direct, started); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Orchestration.GetExecution(ctx, org, direct.ID); err != nil || got.Status != orchestration.ExecutionRunning {
			t.Errorf("direct run = %+v, %v", got, err)
		}
		if err := s.Orchestration.FinishExecution(ctx, org, direct.ID, store.ExecutionEnd{Status: orchestration.ExecutionCancelled, CancelReason: "stop", CancelledBy: "usr_9", CompletedAt: done}); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Orchestration.GetExecution(ctx, org, direct.ID); got.Status != orchestration.ExecutionCancelled || got.CancelReason != "stop" || got.CancelledBy != "usr_9" {
			t.Errorf("cancelled run = %+v", got)
		}
	})
}

func TestStepsAndApprovals(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org, other := newOrg(t, s), newOrg(t, s)
		exe := ids.New(ids.Execution)
		at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		st := &store.Step{ID: ids.New(ids.Step), OrgID: org, ExecutionID: exe, NodeID: "review", Kind: "human_approval",
			Status: orchestration.StepRunning, Attempts: 1, StartedAt: at}
		if err := s.Orchestration.SaveStep(ctx, st); err != nil {
			t.Fatal(err)
		}
		fin := at.Add(time.Minute)
		done := *st
		done.Status, done.Output, done.CompletedAt = orchestration.StepSucceeded, map[string]any{"decision": "approve"}, &fin
		if err := s.Orchestration.SaveStep(ctx, &done); err != nil {
			t.Fatal(err)
		}
		if err := s.Orchestration.SaveStep(ctx, st); err != nil { // a late "running" write
			t.Fatal(err)
		}
		steps, err := s.Orchestration.ExecutionSteps(ctx, org, exe)
		if err != nil || len(steps) != 1 {
			t.Fatalf("steps = %+v, %v", steps, err)
		}
		if b, _ := json.Marshal(steps[0].Output); steps[0].Status != orchestration.StepSucceeded || string(b) != `{"decision":"approve"}` {
			t.Errorf("step = %+v", steps[0])
		}
		if steps, _ := s.Orchestration.ExecutionSteps(ctx, other, exe); len(steps) != 0 {
			t.Errorf("another organisation sees %d steps", len(steps))
		}

		a := &store.Approval{ID: ids.New(ids.Approval), OrgID: org, ExecutionID: exe, StepID: st.ID, NodeID: "review",
			ActionLabel: "Pay?", AssignTo: "role:reviewer", Data: map[string]any{"amount": 5.0}, StartedBy: "usr_1", CreatedAt: at}
		for i := 0; i < 2; i++ {
			if err := s.Orchestration.CreateApproval(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		for _, key := range []string{a.ID, st.ID} {
			got, err := s.Orchestration.GetApproval(ctx, org, key)
			if err != nil || got.ID != a.ID || got.Status != orchestration.ApprovalPending || got.Data["amount"] != 5.0 {
				t.Errorf("GetApproval(%q) = %+v, %v", key, got, err)
			}
			if _, err := s.Orchestration.GetApproval(ctx, other, key); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("another organisation reads approval %q: %v", key, err)
			}
		}
		if err := s.Orchestration.DecideApproval(ctx, org, a.ID, store.ApprovalEnd{Status: orchestration.ApprovalApproved, DecidedBy: "usr_2", Comment: "ok", DecidedAt: fin}); err != nil {
			t.Fatal(err)
		}
		if err := s.Orchestration.DecideApproval(ctx, org, a.ID, store.ApprovalEnd{Status: orchestration.ApprovalCancelled, DecidedAt: fin.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Orchestration.GetApproval(ctx, org, a.ID)
		if got.Status != orchestration.ApprovalApproved || got.DecidedBy != "usr_2" || got.Comment != "ok" || !got.DecidedAt.Equal(fin) {
			t.Errorf("decided approval = %+v", got)
		}
		if list, _ := s.Orchestration.ExecutionApprovals(ctx, org, exe); len(list) != 1 {
			t.Errorf("ExecutionApprovals = %d rows", len(list))
		}
		if err := s.Orchestration.DecideApproval(ctx, org, a.ID, store.ApprovalEnd{Status: orchestration.ApprovalPending}); err == nil {
			t.Error("DecideApproval accepted pending")
		}
	})
}

func TestOrchestrationLists(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org, other := newOrg(t, s), newOrg(t, s)
		for _, slug := range []string{"payout", "kyc-review"} {
			if _, _, err := s.Orchestration.CreateWorkflow(ctx, org, slug, "Flow "+slug, testDefinition, "usr_1"); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := s.Orchestration.CreateWorkflow(ctx, other, "payout", "Theirs", testDefinition, "usr_2"); err != nil {
			t.Fatal(err)
		}
		wfs, total, err := s.Orchestration.ListWorkflows(ctx, org, store.Offset{Page: 1, Limit: 10}, store.Filter{Q: "KYC"})
		if err != nil || total != 1 || len(wfs) != 1 || wfs[0].Slug != "kyc-review" {
			t.Fatalf("ListWorkflows(q=KYC) = %+v, %d, %v", wfs, total, err)
		}

		// Five executions a minute apart, oldest first: statuses and externalIds vary.
		at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		statuses := []orchestration.ExecutionStatus{orchestration.ExecutionPending, orchestration.ExecutionRunning, orchestration.ExecutionSucceeded,
			orchestration.ExecutionSucceeded, orchestration.ExecutionFailed}
		var exes []*store.Execution
		for i, status := range statuses {
			slug := "payout"
			if i == 4 {
				slug = "kyc-review"
			}
			e := &store.Execution{ID: ids.NewAt(ids.Execution, at), OrgID: org, WorkflowID: "wkf_" + slug, WorkflowSlug: slug,
				WorkflowVersion: 1, ExternalID: fmt.Sprintf("order-%d", i), CreatedAt: at.Add(time.Duration(i) * time.Minute)}
			if err := s.Orchestration.CreateExecution(ctx, e); err != nil {
				t.Fatal(err)
			}
			if status != orchestration.ExecutionPending {
				if err := s.Orchestration.MarkExecutionRunning(ctx, e, e.CreatedAt); err != nil {
					t.Fatal(err)
				}
			}
			if orchestration.Executions.Terminal(status) {
				if err := s.Orchestration.FinishExecution(ctx, org, e.ID, store.ExecutionEnd{Status: status, CompletedAt: e.CreatedAt}); err != nil {
					t.Fatal(err)
				}
			}
			exes = append(exes, e)
		}
		foreign := &store.Execution{ID: ids.New(ids.Execution), OrgID: other, WorkflowID: "wkf_payout", WorkflowSlug: "payout", WorkflowVersion: 1}
		if err := s.Orchestration.CreateExecution(ctx, foreign); err != nil {
			t.Fatal(err)
		}

		// Two pages of two and a last one of one, newest first, nothing of the other organisation.
		var seen []string
		page := store.CursorPage{Limit: 2}
		for n := 0; ; n++ {
			rows, next, err := s.Orchestration.ListExecutions(ctx, org, page, store.ExecutionQuery{})
			if err != nil || n > 3 {
				t.Fatalf("ListExecutions page %d: %v", n, err)
			}
			for _, r := range rows {
				seen = append(seen, r.ID)
			}
			if next == nil {
				break
			}
			page.After = next
		}
		want := []string{exes[4].ID, exes[3].ID, exes[2].ID, exes[1].ID, exes[0].ID}
		if fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Fatalf("pages = %v, want %v", seen, want)
		}

		from := at.Add(3 * time.Minute)
		tests := []struct {
			name string
			q    store.ExecutionQuery
			want []string
		}{
			{"status", store.ExecutionQuery{Filter: store.Filter{Status: []string{"succeeded", "failed"}}}, want[:3]},
			{"externalId", store.ExecutionQuery{Filter: store.Filter{ExternalID: "order-1"}}, []string{exes[1].ID}},
			{"q matches the slug (a hyphen, which no random id holds)", store.ExecutionQuery{Filter: store.Filter{Q: "kyc-rev"}}, []string{exes[4].ID}},
			{"workflow by slug", store.ExecutionQuery{Workflow: "kyc-review"}, []string{exes[4].ID}},
			{"workflow by id", store.ExecutionQuery{Workflow: "wkf_payout"}, want[1:]},
			{"from", store.ExecutionQuery{Filter: store.Filter{From: &from}}, want[:2]},
		}
		for _, tt := range tests {
			rows, _, err := s.Orchestration.ListExecutions(ctx, org, store.CursorPage{Limit: 10}, tt.q)
			var got []string
			for _, r := range rows {
				got = append(got, r.ID)
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("%s: got %v, %v; want %v", tt.name, got, err, tt.want)
			}
		}
		counts, err := s.Orchestration.CountExecutions(ctx, org, store.ExecutionQuery{Filter: store.Filter{Status: []string{"failed"}}, Workflow: "payout"})
		if err != nil || fmt.Sprint(counts) != "map[pending:1 running:1 succeeded:2]" {
			t.Errorf("CountExecutions = %v, %v", counts, err)
		}

		// Only a pending execution can be deleted (a start that failed).
		for _, e := range []*store.Execution{exes[0], exes[1]} {
			if err := s.Orchestration.DeletePendingExecution(ctx, org, e.ID); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Orchestration.GetExecution(ctx, org, exes[0].ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("pending execution still there: %v", err)
		}
		if _, err := s.Orchestration.GetExecution(ctx, org, exes[1].ID); err != nil {
			t.Errorf("running execution deleted: %v", err)
		}

		for i, assignTo := range []string{"role:reviewer", "role:reviewer", "role:admin"} {
			a := &store.Approval{ID: ids.New(ids.Approval), OrgID: org, ExecutionID: exes[i].ID, StepID: ids.New(ids.Step), NodeID: "review",
				ActionLabel: "Approve", AssignTo: assignTo, CreatedAt: at.Add(time.Duration(i) * time.Minute)}
			if err := s.Orchestration.CreateApproval(ctx, a); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				if err := s.Orchestration.DecideApproval(ctx, org, a.ID, store.ApprovalEnd{Status: orchestration.ApprovalApproved, DecidedBy: "usr_2", DecidedAt: at}); err != nil {
					t.Fatal(err)
				}
			}
		}
		aps, total, err := s.Orchestration.ListApprovals(ctx, org, store.Offset{Page: 1, Limit: 10},
			store.ApprovalQuery{Filter: store.Filter{Status: []string{"pending"}}, AssignTo: "role:reviewer"})
		if err != nil || total != 1 || aps[0].ExecutionID != exes[1].ID {
			t.Errorf("pending reviewer approvals = %+v, %d, %v", aps, total, err)
		}
		if _, total, _ := s.Orchestration.ListApprovals(ctx, other, store.Offset{Page: 1, Limit: 10}, store.ApprovalQuery{}); total != 0 {
			t.Errorf("another organisation lists %d approvals", total)
		}
		if _, total, _ := s.Orchestration.ListApprovals(ctx, org, store.Offset{Page: 1, Limit: 10}, store.ApprovalQuery{ExecutionID: exes[2].ID}); total != 1 {
			t.Errorf("approvals of one execution: %d", total)
		}
	})
}
