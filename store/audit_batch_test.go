package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// TestAuditWritesOfConcurrentRequests: entries written at once (grouped into shared
// transactions on SQLite) are each committed when Write returns, and one that cannot be stored
// (a duplicate id) fails alone.
func TestAuditWritesOfConcurrentRequests(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := ids.New(ids.Organization)
		dup := ids.New(ids.Audit)
		if err := s.Audit.Write(ctx, &store.AuditLog{ID: dup, OrgID: org, Environment: "sandbox", Action: "first", CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		const writers = 64
		errs := make([]error, writers)
		var wg sync.WaitGroup
		for i := range writers {
			wg.Go(func() {
				id := ids.New(ids.Audit)
				if i == writers/2 {
					id = dup
				}
				e := &store.AuditLog{ID: id, OrgID: org, Environment: "sandbox", Action: fmt.Sprintf("write %d", i), CreatedAt: time.Now()}
				if errs[i] = s.Audit.Write(ctx, e); errs[i] == nil {
					var n int64
					if err := s.DB.Model(&store.AuditLog{}).Where("id = ?", id).Count(&n).Error; err != nil || n != 1 {
						errs[i] = fmt.Errorf("not readable once written: %d, %v", n, err)
					}
				}
			})
		}
		wg.Wait()
		for i, err := range errs {
			if (err != nil) != (i == writers/2) {
				t.Errorf("writer %d: %v", i, err)
			}
		}
		var n int64
		if err := s.DB.Model(&store.AuditLog{}).Where("org_id = ?", org).Count(&n).Error; err != nil || n != writers {
			t.Errorf("%d entries stored, want %d (%v)", n, writers, err)
		}
	})
}
