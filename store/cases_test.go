package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

func TestCasesGatherAlerts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := "org_" + ids.New(ids.Organization)[4:]
		raise := func(ref, customer string) *store.Alert {
			a, _, err := s.Alerts.Raise(ctx, &store.Alert{OrgID: org, Source: "fraud", SourceRef: ref, CustomerID: customer, Score: 0.5, Summary: "review"})
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		a1, a2, b1 := raise("dec_1", "cus_a"), raise("dec_2", "cus_a"), raise("dec_3", "cus_b")
		g := store.Gathering{Window: 24 * time.Hour, DueIn: time.Hour, Limit: 10}
		n, opened, err := s.Cases.GatherAlerts(ctx, g)
		if err != nil || n != 3 || len(opened) != 2 {
			t.Fatalf("gathered %d, opened %v, %v; want 3 alerts into 2 cases", n, opened, err)
		}
		if again, _, err := s.Cases.GatherAlerts(ctx, g); err != nil || again != 0 {
			t.Fatalf("a second gathering took %d alerts (%v)", again, err)
		}
		d, err := s.Cases.CaseDossier(ctx, org, ids.Rebrand(ids.Case, a1.ID))
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Alerts) != 2 || d.Alerts[1].ID != a2.ID || d.Case.CustomerID != "cus_a" || d.Case.Status != "open" {
			t.Fatalf("case of cus_a = %+v with %d alerts", d.Case, len(d.Alerts))
		}
		// Closing the case closes its alerts; a new alert of the customer then opens a new case.
		if err := s.Cases.ApplyCaseChange(ctx, store.CaseChange{OrgID: org, CaseID: d.Case.ID, Key: "k1", Action: cases.ActionApproveClose,
			To: cases.StateClosed, ActorID: "usr_2", Outcome: "false_positive", Rationale: "ok", At: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if a, _ := s.Alerts.Get(ctx, org, a1.ID); a.Status != "closed" {
			t.Errorf("alert of a closed case is %s", a.Status)
		}
		a3 := raise("dec_4", "cus_a")
		if _, opened, err := s.Cases.GatherAlerts(ctx, g); err != nil || len(opened) != 1 || opened[0] != ids.Rebrand(ids.Case, a3.ID) {
			t.Errorf("after the close: opened %v (%v)", opened, err)
		}
		// An alert raised later than the window after the open case opened starts a case of its own.
		late, _, err := s.Alerts.Raise(ctx, &store.Alert{OrgID: org, Source: "fraud", SourceRef: "dec_5", CustomerID: "cus_b", CreatedAt: time.Now().Add(48 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if _, opened, err := s.Cases.GatherAlerts(ctx, g); err != nil || len(opened) != 1 || opened[0] != ids.Rebrand(ids.Case, late.ID) {
			t.Errorf("alert outside the window: opened %v (%v)", opened, err)
		}
		// A person cannot take an alert a case already holds.
		if _, err := s.Cases.CreateCase(ctx, store.NewCase{ID: ids.New(ids.Case), OrgID: org, Title: "x", Priority: "low", AlertIDs: []string{b1.ID}, DueAt: time.Now()}); !errors.Is(err, store.ErrAlertTaken) {
			t.Errorf("taking a gathered alert: %v", err)
		}
		if _, err := s.Cases.CreateCase(ctx, store.NewCase{ID: ids.New(ids.Case), OrgID: "org_other", Title: "x", Priority: "low", AlertIDs: []string{a3.ID}, DueAt: time.Now()}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another organisation's alert: %v", err)
		}
		// The summary seam of the AI automation product.
		if err := s.Cases.SetCaseSummary(ctx, org, d.Case.ID, "two velocity alerts", "aut_1"); err != nil {
			t.Fatal(err)
		}
		if err := s.Cases.SetCaseSummary(ctx, "org_other", d.Case.ID, "x", "aut_2"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("summary of another organisation's case: %v", err)
		}
		if c, _ := s.Cases.GetCase(ctx, org, d.Case.ID); c.Summary != "two velocity alerts" || c.SummaryBy != "aut_1" {
			t.Errorf("summary = %q by %q", c.Summary, c.SummaryBy)
		}
	})
}

func TestCasesSubmitSARFourEyes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := "org_" + ids.New(ids.Organization)[4:]
		c, err := s.Cases.CreateCase(ctx, store.NewCase{ID: ids.New(ids.Case), OrgID: org, Title: "x", Priority: "low", DueAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		f := &store.SARFiling{ID: ids.New(ids.SARFiling), OrgID: org, CaseID: c.ID, ActivityFrom: "2026-01-01", ActivityTo: "2026-01-31",
			Amount: 10, Currency: "EUR", Narrative: "n", FiledByID: "usr_drafter"}
		if err := s.Cases.CreateSAR(ctx, f); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Cases.SubmitSAR(ctx, org, f.ID, "usr_drafter", "key_1"); !errors.Is(err, store.ErrSARFourEyes) {
			t.Fatalf("drafter submits: %v", err)
		}
		if _, err := s.Cases.SubmitSAR(ctx, "org_other", f.ID, "usr_second", "key_2"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation submits: %v", err)
		}
		got, err := s.Cases.SubmitSAR(ctx, org, f.ID, "usr_second", "key_2")
		if err != nil || got.Status != "submitted" || got.SubmittedByID != "usr_second" || got.SubmittedByKeyID != "key_2" {
			t.Fatalf("second user submits: %+v %v", got, err)
		}
		var conflict *store.SARStateError
		if _, err := s.Cases.SubmitSAR(ctx, org, f.ID, "usr_third", "key_3"); !errors.As(err, &conflict) || conflict.From != "submitted" {
			t.Fatalf("second submit: %v", err)
		}
		n := "changed"
		if _, err := s.Cases.UpdateSAR(ctx, org, f.ID, store.SARChange{Narrative: &n}); !errors.As(err, &conflict) {
			t.Fatalf("change after submit: %v", err)
		}
		at := time.Now()
		if err := s.Cases.SARAnswered(ctx, org, f.ID, cases.SARAcknowledged, "FIU-1", "", 2, at); err != nil {
			t.Fatal(err)
		}
		if err := s.Cases.SARAnswered(ctx, org, f.ID, cases.SARRejected, "", "late", 3, at); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Cases.GetSAR(ctx, org, f.ID); got.Status != "acknowledged" || got.Reference != "FIU-1" {
			t.Errorf("answered filing %s %q: a late second answer must not change it", got.Status, got.Reference)
		}
	})
}
