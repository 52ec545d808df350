package identity_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	idvacts "github.com/svcplatform/svc/activities/identity"
	"github.com/svcplatform/svc/internal/blobs"
	idv "github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	idvwf "github.com/svcplatform/svc/workflows/identity"
)

// TestPurgeDeletesExpiredPersonalData: the retention run deletes the images and extracted data
// of attempts completed before the cut-off, keeps a file another record still refers to, and
// leaves newer attempts alone.
func TestPurgeDeletesExpiredPersonalData(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		bl, err := blobs.NewLocal(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		put := func(b string) string {
			blob, err := blobs.Put(ctx, bl, bytes.NewReader([]byte(b)), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			return blob.Key
		}
		org, err := s.Orgs.Bootstrap(ctx, store.BootstrapInput{OrgName: "o", DefaultUser: true, Environment: "sandbox", Scopes: []string{"read"}})
		if err != nil {
			t.Fatal(err)
		}
		orgID := org.Org.ID
		old := time.Now().Add(-100 * 24 * time.Hour)
		attempt := func(front string, completed time.Time) *store.IdentityAttempt {
			v := &store.IdentityVerification{ID: ids.New(ids.IdentityVerification), OrgID: orgID,
				Claimed: idv.Claimed{FullName: "Siti Rahayu", BirthDate: "1990-06-05"}, Policy: idv.Policy{DocumentTypes: []string{"ktp"}},
				ExpiresAt: completed.Add(time.Hour)}
			if err := s.Identity.CreateVerification(ctx, v); err != nil {
				t.Fatal(err)
			}
			a := &store.IdentityAttempt{ID: ids.New(ids.IdentityAttempt), OrgID: orgID, VerificationID: v.ID, FrontKey: front}
			if err := s.Identity.SubmitAttempt(ctx, a, completed); err != nil {
				t.Fatal(err)
			}
			if err := s.Identity.SaveDocument(ctx, orgID, a.ID, idv.Document{Readable: true, Type: "ktp"}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Identity.CompleteAttempt(ctx, orgID, a.ID, idv.AttemptCompleted, nil, idv.Outcome{Status: idv.StatusVerified}, completed); err != nil {
				t.Fatal(err)
			}
			return a
		}
		own := attempt(put("own image"), old)
		shared := put("shared image")
		sharing := attempt(shared, old)
		doc := &store.Document{ID: ids.New(ids.Document), OrgID: orgID, Filename: "x.png", Format: "png", Size: 1, SHA256: "x", BlobKey: shared}
		if err := s.Documents.Create(ctx, doc); err != nil {
			t.Fatal(err)
		}
		recent := attempt(put("recent image"), time.Now())

		acts := &idvacts.Activities{Store: s, Blobs: bl}
		got, err := acts.PurgeIdentityData(ctx, idvwf.PurgeInput{Before: time.Now().Add(-90 * 24 * time.Hour), Limit: 10})
		if err != nil || got.Attempts != 2 || got.Images != 1 {
			t.Fatalf("purge %+v %v", got, err)
		}
		if _, err := bl.Open(ctx, own.FrontKey); !errors.Is(err, blobs.ErrNotFound) {
			t.Errorf("the purged image is still there: %v", err)
		}
		if r, err := bl.Open(ctx, shared); err != nil {
			t.Errorf("an image a document refers to was deleted: %v", err)
		} else {
			_ = r.Close()
		}
		for _, a := range []*store.IdentityAttempt{own, sharing} {
			g, _ := s.Identity.GetAttempt(ctx, orgID, a.ID)
			if g.Document != nil || g.FrontKey != "" || g.PurgedAt == nil || g.Outcome != "verified" {
				t.Errorf("purged attempt %+v", g)
			}
		}
		if g, _ := s.Identity.GetAttempt(ctx, orgID, recent.ID); g.Document == nil || g.PurgedAt != nil {
			t.Errorf("a recent attempt was purged: %+v", g)
		}
		if again, err := acts.PurgeIdentityData(ctx, idvwf.PurgeInput{Before: time.Now().Add(-90 * 24 * time.Hour), Limit: 10}); err != nil || again.Attempts != 0 {
			t.Errorf("second purge %+v %v", again, err)
		}
	})
}
