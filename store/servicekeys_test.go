package store_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// TestServiceKeysIssueOnceSealedAndReplaceWhenStale: the platform issues an organisation's
// identity service key on first need (hash-only in api_keys, the value only sealed), gives the
// same value after, replaces a revoked key, revokes the key when a product is removed, and
// concurrent callers end with one key.
func TestServiceKeysIssueOnceSealedAndReplaceWhenStale(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		box := testBox(t)
		conn, ok := auth.ServiceConnectionOf(auth.ProductIdentity)
		if !ok {
			t.Fatal("no identity connection")
		}
		org := newOrg(t, s)
		now := time.Now()
		req := store.ServiceKeyRequest{OrgID: org, Connection: conn, Environment: "sandbox", Now: now}
		secret, err := s.ServiceKeys.Secret(ctx, box, req)
		if err != nil || !strings.HasPrefix(secret, "svc_sk_sandbox_") {
			t.Fatalf("first Secret = %q, %v", secret, err)
		}
		k, err := s.Keys.ByHash(ctx, auth.HashKey(secret))
		if err != nil {
			t.Fatal(err)
		}
		if k.OrgID != org || k.CallerServiceSlug != "identity" || len(k.Scopes) != 1 || k.Scopes[0] != "screenings:write" || k.ActAsUserID != "" {
			t.Errorf("service key %+v", k)
		}
		var row store.ServiceKey
		if err := s.DB.Where("org_id = ?", org).Take(&row).Error; err != nil {
			t.Fatal(err)
		}
		if row.APIKeyID != k.ID || strings.Contains(row.SealedSecret, secret) || strings.Contains(row.SealedSecret, secret[len(secret)-8:]) {
			t.Errorf("stored row %+v: not sealed or not the key", row)
		}
		var audits []store.AuditLog
		s.DB.Where("org_id = ? AND action = ?", org, store.AuditServiceKeyIssued).Find(&audits)
		if len(audits) != 1 || audits[0].ResourceID != k.ID || audits[0].CallerServiceSlug != "identity" {
			t.Errorf("audit of the issue %+v", audits)
		}
		if again, err := s.ServiceKeys.Secret(ctx, box, req); err != nil || again != secret {
			t.Errorf("second Secret issued another key: %v", err)
		}

		// Revoked by the organisation: the next need issues a successor; the old stays refused.
		if _, err := s.Keys.Revoke(ctx, org, k.ID, now); err != nil {
			t.Fatal(err)
		}
		next, err := s.ServiceKeys.Secret(ctx, box, req)
		if err != nil || next == secret {
			t.Fatalf("after revocation = %v (same key: %v)", err, next == secret)
		}

		// A removed product disconnects: no key, and the one in use is revoked.
		if _, err := s.Orgs.SetCapabilities(ctx, org, auth.ParseCapabilities("identity,cases")); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ServiceKeys.Secret(ctx, box, req); !errors.Is(err, store.ErrNotConnected) {
			t.Errorf("without screening = %v, want ErrNotConnected", err)
		}
		nk, _ := s.Keys.ByHash(ctx, auth.HashKey(next))
		if nk.Status(now.Add(time.Second)) != store.KeyRevoked {
			t.Errorf("key of a disconnected organisation is %s", nk.Status(now.Add(time.Second)))
		}

		// Reconnected, then disconnected by a capability change: revoked at once.
		if _, err := s.Orgs.SetCapabilities(ctx, org, auth.ParseCapabilities("*")); err != nil {
			t.Fatal(err)
		}
		third, err := s.ServiceKeys.Secret(ctx, box, req)
		if err != nil || third == next {
			t.Fatalf("reconnected = %v (same key: %v)", err, third == next)
		}
		if n, err := s.ServiceKeys.RevokeDisconnected(ctx, org, auth.ParseCapabilities("*"), now); err != nil || n != 0 {
			t.Errorf("RevokeDisconnected while connected = %d %v", n, err)
		}
		if n, err := s.ServiceKeys.RevokeDisconnected(ctx, org, auth.ParseCapabilities("screening"), now); err != nil || n != 1 {
			t.Errorf("RevokeDisconnected without identity = %d %v, want 1", n, err)
		}
		if tk, _ := s.Keys.ByHash(ctx, auth.HashKey(third)); tk.Status(now.Add(time.Second)) != store.KeyRevoked {
			t.Errorf("disconnected key is %s", tk.Status(now.Add(time.Second)))
		}

		// Several workers at once on a fresh organisation: one key, one value.
		org2 := newOrg(t, s)
		var wg sync.WaitGroup
		got := make([]string, 4)
		errs := make([]error, 4)
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], errs[i] = s.ServiceKeys.Secret(ctx, box, store.ServiceKeyRequest{OrgID: org2, Connection: conn, Environment: "sandbox", Now: now})
			}()
		}
		wg.Wait()
		for i := range got {
			if errs[i] != nil || got[i] != got[0] {
				t.Errorf("concurrent Secret %d = %v (same as first: %v)", i, errs[i], got[i] == got[0])
			}
		}
		var n int64
		s.DB.Model(&store.APIKey{}).Where("org_id = ? AND caller_service_slug = ? AND revoked_at IS NULL", org2, "identity").Count(&n)
		if n != 1 {
			t.Errorf("%d active service keys after concurrent issuing, want 1", n)
		}
	})
}
