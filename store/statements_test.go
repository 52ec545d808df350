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
		v, err := s.Statements.DecideAnalysis(ctx, org, a.ID, res, now)
		if err != nil || v != 1 {
			t.Fatalf("decide: %d %v", v, err)
		}
		got, err := s.Statements.GetAnalysis(ctx, org, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != string(statements.StatusCompleted) || got.Version != 1 || got.PasswordSealed != "" || got.CompletedAt == nil ||
			got.Result == nil || len(got.Result.Statements) != 1 || got.Result.Statements[0].Transactions[0].Amount != -350 || got.Files[0].Filename != "jan.csv" {
			t.Fatalf("stored: %+v", got)
		}
		if v, err := s.Statements.DecideAnalysis(ctx, org, a.ID, res, now); err != nil || v != 2 {
			t.Fatalf("a correction's new version: %d %v", v, err)
		}
		if err := s.Statements.FailAnalysis(ctx, org, a.ID, statements.StageParse, "the CSV file is empty", now); err != nil {
			t.Fatal(err)
		}
		var se *store.StateError
		if _, err := s.Statements.DecideAnalysis(ctx, org, a.ID, res, now); !errors.As(err, &se) || se.Status != "failed" {
			t.Fatalf("deciding a failed analysis: %v", err)
		}
		rows, _, err := s.Statements.ListAnalyses(ctx, org, store.CursorPage{Limit: 10}, store.Filter{})
		if err != nil || len(rows) != 1 || rows[0].ID != a.ID || rows[0].FailedStage != "parse" {
			t.Fatalf("list: %+v %v", rows, err)
		}
		if rows, _, _ := s.Statements.ListAnalyses(ctx, other, store.CursorPage{Limit: 10}, store.Filter{}); len(rows) != 0 {
			t.Fatalf("another organisation lists %d", len(rows))
		}
	})
}
