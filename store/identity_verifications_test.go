package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	idv "github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

func newVerification(t *testing.T, s *store.Store, orgID string, now time.Time, maxAttempts int) *store.IdentityVerification {
	t.Helper()
	v := &store.IdentityVerification{ID: ids.New(ids.IdentityVerification), OrgID: orgID, CustomerID: "cus_1",
		Claimed: idv.Claimed{FullName: "Siti Rahayu", BirthDate: "1990-06-05"},
		Policy:  idv.Policy{DocumentTypes: []string{"ktp"}, MaxAttempts: maxAttempts}, ExpiresAt: now.Add(time.Hour)}
	if err := s.Identity.CreateVerification(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestIdentityVerificationWrites(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := time.Now().UTC().Truncate(time.Millisecond)
		org, other := newOrg(t, s), newOrg(t, s)
		v := newVerification(t, s, org, now, 2)
		if _, err := s.Identity.GetVerification(ctx, other, v.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation reads it: %v", err)
		}
		if err := s.Identity.SubmitAttempt(ctx, &store.IdentityAttempt{ID: ids.New(ids.IdentityAttempt), OrgID: other, VerificationID: v.ID}, now); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation submits: %v", err)
		}

		// Two attempts at once: one wins, the other finds the verification processing.
		var wg sync.WaitGroup
		errs := make([]error, 2)
		atts := make([]*store.IdentityAttempt, 2)
		for i := range 2 {
			atts[i] = &store.IdentityAttempt{ID: ids.New(ids.IdentityAttempt), OrgID: org, VerificationID: v.ID, FrontKey: "sha256/ab/ab"}
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = s.Identity.SubmitAttempt(ctx, atts[i], now) }()
		}
		wg.Wait()
		won := 0
		var se *store.StateError
		for i, err := range errs {
			switch {
			case err == nil:
				won = i
			case errors.As(err, &se) && se.Status == "processing":
			default:
				t.Fatalf("attempt %d: %v", i, err)
			}
		}
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("both or neither attempt won: %v", errs)
		}
		a := atts[won]
		if a.Number != 1 || a.CustomerID != "cus_1" || a.Status != "processing" {
			t.Fatalf("attempt %+v", a)
		}
		doc := idv.Document{Readable: true, Type: "ktp", Fields: map[string]idv.DocumentField{"name": {Value: "SITI RAHAYU", Confidence: 0.9}}}
		if err := s.Identity.SaveDocument(ctx, org, a.ID, doc); err != nil {
			t.Fatal(err)
		}
		checks := []idv.CheckResult{{Type: idv.CheckExpiry, Status: idv.Failed, Reasons: []string{"document_expired"}}}
		out := idv.Outcome{Status: idv.StatusResubmissionRequested, Reasons: []string{"document_expired"}}
		for range 2 { // a retried write applies once and answers the same
			if applied, err := s.Identity.CompleteAttempt(ctx, org, a.ID, idv.AttemptCompleted, checks, out, now); err != nil || !applied {
				t.Fatalf("complete: %v %v", applied, err)
			}
		}
		got, _ := s.Identity.GetAttempt(ctx, org, a.ID)
		if got.Document == nil || got.Document.Fields["name"].Value != "SITI RAHAYU" || len(got.Checks) != 1 || got.Outcome != "resubmission_requested" {
			t.Fatalf("stored attempt %+v", got)
		}
		gv, _ := s.Identity.GetVerification(ctx, org, v.ID)
		if gv.Status != "resubmission_requested" || gv.Attempts != 1 || len(gv.Reasons) != 1 {
			t.Fatalf("verification %+v", gv)
		}
		if moved, err := s.Identity.ExpireVerification(ctx, org, v.ID, now); err != nil || moved {
			t.Fatalf("expired before its deadline: %v %v", moved, err)
		}

		// The second and last attempt goes to review; a reviewer cannot ask for a third.
		b := &store.IdentityAttempt{ID: ids.New(ids.IdentityAttempt), OrgID: org, VerificationID: v.ID, FrontKey: "sha256/cd/cd"}
		if err := s.Identity.SubmitAttempt(ctx, b, now); err != nil || b.Number != 2 {
			t.Fatalf("second attempt: %v %d", err, b.Number)
		}
		if _, err := s.Identity.CompleteAttempt(ctx, org, b.ID, idv.AttemptCompleted, nil, idv.Outcome{Status: idv.StatusReview}, now); err != nil {
			t.Fatal(err)
		}
		if err := s.Identity.ReviewVerification(ctx, org, v.ID, idv.StatusResubmissionRequested, "usr_r", "", now); !errors.Is(err, store.ErrNoAttemptsLeft) {
			t.Fatalf("resubmission past the cap: %v", err)
		}
		if err := s.Identity.ReviewVerification(ctx, org, v.ID, idv.StatusVerified, "usr_r", "looks right", now); err != nil {
			t.Fatal(err)
		}
		if err := s.Identity.ReviewVerification(ctx, org, v.ID, idv.StatusRejected, "usr_r", "", now); !errors.As(err, &se) || se.Status != "verified" {
			t.Fatalf("second decision: %v", err)
		}
		gv, _ = s.Identity.GetVerification(ctx, org, v.ID)
		if gv.Status != "verified" || gv.ReviewedBy != "usr_r" || gv.ReviewComment != "looks right" || gv.CompletedAt == nil {
			t.Fatalf("after review %+v", gv)
		}

		// Expiry: only a verification waiting for input, once due.
		w := newVerification(t, s, org, now, 1)
		if moved, err := s.Identity.ExpireVerification(ctx, org, w.ID, w.ExpiresAt); err != nil || !moved {
			t.Fatalf("expire: %v %v", moved, err)
		}
		late := &store.IdentityAttempt{ID: ids.New(ids.IdentityAttempt), OrgID: org, VerificationID: w.ID}
		if err := s.Identity.SubmitAttempt(ctx, late, now); !errors.As(err, &se) || se.Status != "expired" {
			t.Fatalf("attempt on an expired verification: %v", err)
		}

		// The feed: newest first, the organisation's only, filtered by status.
		rows, next, err := s.Identity.ListAttempts(ctx, org, store.CursorPage{Limit: 1}, store.Filter{})
		if err != nil || len(rows) != 1 || next == nil || rows[0].ID != b.ID {
			t.Fatalf("first page %v %v %v", rows, next, err)
		}
		rows, next, err = s.Identity.ListAttempts(ctx, org, store.CursorPage{Limit: 5, After: next}, store.Filter{})
		if err != nil || len(rows) != 1 || next != nil || rows[0].ID != a.ID {
			t.Fatalf("second page %v %v %v", rows, next, err)
		}
		if rows, _, _ := s.Identity.ListAttempts(ctx, other, store.CursorPage{Limit: 5}, store.Filter{}); len(rows) != 0 {
			t.Fatalf("another organisation sees %d attempts", len(rows))
		}

		// Retention: the attempts' personal data goes, the decision stays.
		cands, err := s.Identity.PurgeCandidates(ctx, now.Add(time.Second), 10)
		if err != nil || len(cands) != 2 {
			t.Fatalf("purge candidates %d %v", len(cands), err)
		}
		if err := s.Identity.MarkPurged(ctx, org, a.ID, now); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Identity.GetAttempt(ctx, org, a.ID)
		if got.Document != nil || got.FrontKey != "" || got.PurgedAt == nil || got.Outcome != "resubmission_requested" {
			t.Fatalf("purged attempt %+v", got)
		}
	})
}
