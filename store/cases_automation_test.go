package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// TestCasesServeTheAutomations: the case automations read a case with its alerts and write a
// summary and a SAR draft on it, each once per run, and never reach another organisation's.
func TestCasesServeTheAutomations(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := newOrg(t, s)
		cus := &store.Customer{ID: ids.New(ids.Customer), OrgID: org, Type: "person", FullName: "Ivan Petrov", Country: "RU", Status: "active"}
		if err := s.Customers.Create(ctx, cus); err != nil {
			t.Fatal(err)
		}
		a, _, err := s.Alerts.Raise(ctx, &store.Alert{OrgID: org, Source: string(cases.SourceFraud), SourceRef: "dec_1", CustomerID: cus.ID,
			Score: 80, Summary: "review: score 80", ReasonCodes: []string{"VELOCITY"}, Details: map[string]any{"outcome": "review"}})
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.Cases.CreateCase(ctx, store.NewCase{ID: ids.New(ids.Case), OrgID: org, Title: "velocity", CustomerID: cus.ID, Priority: "high", AlertIDs: []string{a.ID}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Cases.CaseContext(ctx, org, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Subject.Name != "Ivan Petrov" || len(got.Alerts) != 1 || len(got.Decisions) != 1 || got.Decisions[0].Outcome != "review" {
			t.Fatalf("context %+v", got)
		}
		if _, err := s.Cases.CaseContext(ctx, newOrg(t, s), c.ID); !errors.Is(err, automation.ErrCaseNotFound) {
			t.Fatalf("another organisation read the case: %v", err)
		}
		mark := automation.MachineWritten{AutomationID: ids.New(ids.Automation), Model: "m"}
		sum := automation.MachineSummary{CaseSummary: automation.CaseSummary{Summary: "two transfers in an hour", RecommendedAction: "monitor"}, MachineWritten: mark}
		for range 2 {
			if err := s.Cases.SaveMachineSummary(ctx, org, c.ID, sum); err != nil {
				t.Fatal(err)
			}
		}
		d, err := s.Cases.CaseDossier(ctx, org, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		entries := 0
		for _, e := range d.Timeline {
			if e.Kind == store.EntrySummary {
				entries++
			}
		}
		if d.Case.SummaryBy != mark.AutomationID || entries != 1 {
			t.Fatalf("summary by %q with %d timeline entries, want the run's, once", d.Case.SummaryBy, entries)
		}
		draft := automation.MachineSARDraft{SARDraft: automation.SARDraft{Narrative: "Between …"}, MachineWritten: mark, DraftedBy: "usr_drafter"}
		for range 2 {
			if err := s.Cases.SaveSARDraft(ctx, org, c.ID, draft); err != nil {
				t.Fatal(err)
			}
		}
		sars, total, err := s.Cases.ListSARs(ctx, org, store.Offset{Page: 1, Limit: 10}, store.Filter{}, c.ID)
		if err != nil || total != 1 || sars[0].FiledByID != "usr_drafter" || sars[0].Status != string(cases.SARFilings.Initial()) {
			t.Fatalf("drafts %+v (%d) %v, want one draft by the requester", sars, total, err)
		}
	})
}
