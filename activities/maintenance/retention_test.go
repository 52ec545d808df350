package maintenance_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	mntacts "github.com/svcplatform/svc/activities/maintenance"
	"github.com/svcplatform/svc/internal/blobs"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	mntwf "github.com/svcplatform/svc/workflows/maintenance"
)

// TestPruneDocumentFiles: the files of documents that ended before the window are deleted and
// forgotten, in batches; a file whose bytes a recent document, an open one or an identity
// attempt still names stays in the blob store; the records and their fields stay.
func TestPruneDocumentFiles(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		bl, err := blobs.NewLocal(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		put := func(content string) string {
			b, err := blobs.Put(ctx, bl, strings.NewReader(content), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			return b.Key
		}
		org, err := s.Orgs.Create(ctx, "retention")
		if err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
		old, recent := now.Add(-48*time.Hour), now.Add(-time.Hour)
		doc := func(status string, completed *time.Time, blob, text string) string {
			t.Helper()
			d := &store.Document{ID: ids.New(ids.Document), OrgID: org.ID, Status: status, Filename: "f.pdf", Format: "pdf",
				SHA256: strings.Repeat("a", 64), BlobKey: blob, TextKey: text, CompletedAt: completed}
			if err := s.DB.Create(d).Error; err != nil {
				t.Fatal(err)
			}
			return d.ID
		}
		alone, alone2, shared, withAttempt, text := put("alone"), put("alone 2"), put("shared"), put("attempt"), put("text")
		oldAlone := doc("extracted", &old, alone, text)
		oldFailed := doc("failed", &old, alone2, "")
		oldShared := doc("requires_review", &old, shared, "")
		recentShared := doc("extracted", &recent, shared, "")
		waiting := doc("password_required", nil, put("waiting"), "")
		oldAttempt := doc("extracted", &old, withAttempt, "")
		att := &store.IdentityAttempt{ID: ids.New(ids.IdentityAttempt), OrgID: org.ID, VerificationID: "idv_1", Number: 1, Status: "completed", FrontKey: withAttempt}
		if err := s.DB.Create(att).Error; err != nil {
			t.Fatal(err)
		}

		a := &mntacts.Activities{Store: s, Blobs: bl}
		var total int64
		for range 5 {
			n, err := a.PruneDocumentFiles(ctx, mntwf.PruneInput{Before: now.Add(-24 * time.Hour), Limit: 2})
			if err != nil || n > 2 {
				t.Fatalf("PruneDocumentFiles = %d, %v; want at most the batch of 2", n, err)
			}
			total += n
			if n < 2 {
				break
			}
		}
		if total != 4 {
			t.Errorf("pruned the files of %d documents, want the 4 that ended before the window", total)
		}
		gone := func(key string) bool {
			_, err := bl.Open(ctx, key)
			return errors.Is(err, blobs.ErrNotFound)
		}
		for _, key := range []string{alone, alone2, text} {
			if !gone(key) {
				t.Errorf("blob %s of an old document is still stored", key)
			}
		}
		for _, key := range []string{shared, withAttempt} {
			if gone(key) {
				t.Errorf("blob %s that another record names was deleted", key)
			}
		}
		for id, forgotten := range map[string]bool{oldAlone: true, oldFailed: true, oldShared: true, oldAttempt: true, recentShared: false, waiting: false} {
			d, err := s.Documents.Get(ctx, org.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			if (d.BlobKey == "" && d.TextKey == "") != forgotten {
				t.Errorf("document %s (%s): blob %q text %q, forgotten should be %t", id, d.Status, d.BlobKey, d.TextKey, forgotten)
			}
		}
		if n, err := a.PruneDocumentFiles(ctx, mntwf.PruneInput{Before: now.Add(-24 * time.Hour), Limit: 2}); err != nil || n != 0 {
			t.Errorf("a second run = %d, %v; want nothing left", n, err)
		}
	})
}
