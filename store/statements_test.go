package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

func TestAnalysisLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := time.Now().UTC().Truncate(time.Millisecond)
		org, other := newOrg(t, s), newOrg(t, s)
		a := &store.Analysis{ID: ids.New(ids.Analysis), OrgID: org, ExternalID: "ext-1", PasswordSealed: "sealed",
			Files: []store.AnalysisFile{{Filename: "jan.csv", Kind: "csv", Size: 10, SHA256: "ab", BlobKey: "k"}}}
		if err := s.Statements.CreateAnalysis(ctx, a); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Statements.GetAnalysis(ctx, other, a.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation reads it: %v", err)
		}
		if _, err := s.Statements.DecideAnalysis(ctx, other, a.ID, &statements.Result{}, now); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation decides it: %v", err)
		}
		st, err := statements.ParseCSV([]byte("Date,Description,Amount,Balance\n2024-01-02,COFFEE,-3.50,96.50\n"), "EUR")
		if err != nil {
			t.Fatal(err)
		}
		res := statements.Analyze([]*statements.FileResult{{Kind: statements.KindCSV, MeanConfidence: 1, Statements: []*statements.Statement{st}}}, nil, nil)
		var se *store.StateError
		if _, err := s.Statements.DecideAnalysis(ctx, org, a.ID, res, now); !errors.As(err, &se) || se.Status != "uploaded" {
			t.Fatalf("deciding an analysis the pipeline has not accepted: %v", err)
		}
		if err := s.Statements.UpdateAnalysis(ctx, org, a.ID, store.AnalysisUpdate{Status: statements.StatusProcessing}, now); err != nil {
			t.Fatal(err)
		}
		v, err := s.Statements.DecideAnalysis(ctx, org, a.ID, res, now)
		if err != nil || v != 1 {
			t.Fatalf("decide: %d %v", v, err)
		}
		if v, err := s.Statements.DecideAnalysis(ctx, org, a.ID, res, now); err != nil || v != 1 {
			t.Fatalf("a retried decision: %d %v", v, err)
		}
		got, err := s.Statements.GetAnalysis(ctx, org, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != string(statements.StatusCompleted) || got.Version != 1 || got.PasswordSealed != "" || got.CompletedAt == nil ||
			got.Result == nil || len(got.Result.Statements) != 1 || got.Result.Statements[0].Transactions[0].Amount != -350 || got.Files[0].Filename != "jan.csv" {
			t.Fatalf("stored: %+v", got)
		}
		amount := statements.Amount(-360)
		cs := []statements.Correction{{Index: 0, Amount: &amount}}
		fixed, fe := got.Result.Corrected(cs, nil)
		if fe != nil {
			t.Fatal(fe)
		}
		if v, err := s.Statements.CorrectAnalysis(ctx, org, a.ID, 1, fixed, cs, "usr_1", now); err != nil || v != 2 {
			t.Fatalf("a correction's new version: %d %v", v, err)
		}
		if _, err := s.Statements.CorrectAnalysis(ctx, org, a.ID, 1, fixed, cs, "usr_2", now); !errors.As(err, &se) {
			t.Fatalf("a correction of an outdated version: %v", err)
		}
		if _, err := s.Statements.CorrectAnalysis(ctx, other, a.ID, 2, fixed, cs, "usr_2", now); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation corrects it: %v", err)
		}
		v1, err := s.Statements.GetVersion(ctx, org, a.ID, 1)
		if err != nil || v1.Result.Statements[0].Transactions[0].Amount != -350 || v1.ActorUserID != "" {
			t.Fatalf("version 1: %+v %v", v1, err)
		}
		v2, err := s.Statements.GetVersion(ctx, org, a.ID, 2)
		if err != nil || v2.Result.Statements[0].Transactions[0].Amount != -360 || v2.ActorUserID != "usr_1" || len(v2.Corrections) != 1 {
			t.Fatalf("version 2: %+v %v", v2, err)
		}
		if _, err := s.Statements.GetVersion(ctx, other, a.ID, 2); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation reads a version: %v", err)
		}
		// The pipeline cannot fail a decided analysis.
		if err := s.Statements.FailAnalysis(ctx, org, a.ID, statements.StageParse, "late", now); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Statements.GetAnalysis(ctx, org, a.ID); got.Status != string(fixed.Status) || got.Version != 2 {
			t.Fatalf("after a late failure: %s v%d", got.Status, got.Version)
		}
		b := &store.Analysis{ID: ids.New(ids.Analysis), OrgID: org, Files: []store.AnalysisFile{}}
		if err := s.Statements.CreateAnalysis(ctx, b); err != nil {
			t.Fatal(err)
		}
		if err := s.Statements.FailAnalysis(ctx, org, b.ID, statements.StageParse, "the CSV file is empty", now); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Statements.DecideAnalysis(ctx, org, b.ID, res, now); !errors.As(err, &se) || se.Status != "failed" {
			t.Fatalf("deciding a failed analysis: %v", err)
		}
		rows, _, err := s.Statements.ListAnalyses(ctx, org, store.CursorPage{Limit: 10}, store.Filter{})
		if err != nil || len(rows) != 2 || rows[0].ID != b.ID || rows[0].FailedStage != "parse" {
			t.Fatalf("list: %+v %v", rows, err)
		}
		if rows, _, _ := s.Statements.ListAnalyses(ctx, other, store.CursorPage{Limit: 10}, store.Filter{}); len(rows) != 0 {
			t.Fatalf("another organisation lists %d", len(rows))
		}
	})
}

func TestStatementTemplatesAndRules(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org, other := newOrg(t, s), newOrg(t, s)
		tmpl := statements.BuiltinTemplates()[0]
		tmpl.ID, tmpl.Bank = ids.New(ids.Template), "Org Bank"
		row := &store.StatementTemplate{ID: tmpl.ID, OrgID: org, Bank: tmpl.Bank, Template: tmpl, CreatedAt: time.Now()}
		if err := s.Statements.CreateTemplate(ctx, row); err != nil {
			t.Fatal(err)
		}
		all, err := s.Statements.Templates(ctx, org)
		if err != nil || len(all) != len(statements.BuiltinTemplates())+1 || all[0].ID != tmpl.ID || all[0].Number != tmpl.Number {
			t.Fatalf("templates: %+v %v", all, err)
		}
		if all, _ := s.Statements.Templates(ctx, other); len(all) != len(statements.BuiltinTemplates()) {
			t.Fatalf("another organisation sees %d templates", len(all))
		}
		if _, err := s.Statements.GetTemplate(ctx, other, tmpl.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation reads it: %v", err)
		}
		if err := s.Statements.DeleteTemplate(ctx, other, tmpl.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation deletes it: %v", err)
		}
		if err := s.Statements.DeleteTemplate(ctx, org, tmpl.ID); err != nil {
			t.Fatal(err)
		}
		rules, err := s.Statements.CategoryRules(ctx, org)
		if err != nil || rules.Rules == nil || len(rules.Rules) != 0 {
			t.Fatalf("no rules yet: %+v %v", rules, err)
		}
		for _, cat := range []string{"coffee", "tea"} {
			r := &store.StatementCategoryRules{OrgID: org, Rules: []statements.CategoryRule{{Category: cat, Contains: []string{"cafe"}}}, UpdatedAt: time.Now()}
			if err := s.Statements.SetCategoryRules(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if rules, err := s.Statements.CategoryRules(ctx, org); err != nil || len(rules.Rules) != 1 || rules.Rules[0].Category != "tea" {
			t.Fatalf("replaced rules: %+v %v", rules, err)
		}
		if rules, _ := s.Statements.CategoryRules(ctx, other); len(rules.Rules) != 0 {
			t.Fatalf("another organisation sees %+v", rules)
		}
	})
}
