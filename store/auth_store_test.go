package store_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

func TestBootstrap(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		res, err := s.Orgs.Bootstrap(ctx, store.BootstrapInput{OrgName: "Acme", Email: "Admin@Example.com", Password: "correct horse battery", Environment: "sandbox"})
		if err != nil {
			t.Fatal(err)
		}
		if res.User == nil || res.User.Email != "admin@example.com" || res.User.Role != auth.RoleAdmin || res.Key.ActAsUserID != res.User.ID {
			t.Fatalf("bootstrap = %+v", res)
		}
		if env, err := auth.ParseKey(res.Secret); err != nil || env != "sandbox" {
			t.Fatalf("secret %q: %v", res.Secret, err)
		}
		back, err := s.Keys.ByHash(ctx, auth.HashKey(res.Secret))
		if err != nil || back.ID != res.Key.ID || back.Hash == res.Secret {
			t.Fatalf("stored key = %+v, %v", back, err)
		}
		if !auth.CheckPassword(res.User.PasswordHash, "correct horse battery") {
			t.Fatal("password not stored as a hash of the password")
		}
		// Another user and key in the same organisation.
		more, err := s.Orgs.Bootstrap(ctx, store.BootstrapInput{OrgID: res.Org.ID, Email: "rev@example.com", Role: "reviewer", Environment: "live"})
		if err != nil || more.Org.ID != res.Org.ID || more.Key.Environment != "live" || len(more.Key.Scopes) != len(auth.RoleScopes("reviewer")) {
			t.Fatalf("org-scoped bootstrap = %+v, %v", more, err)
		}
		// A service principal key.
		svc, err := s.Orgs.Bootstrap(ctx, store.BootstrapInput{OrgID: res.Org.ID, ServiceSlug: "aml-screening", Scopes: []string{"screenings.write"}, Environment: "sandbox"})
		if err != nil || svc.User != nil || svc.Key.CallerServiceSlug != "aml-screening" || svc.Key.Scopes[0] != "screenings:write" {
			t.Fatalf("service bootstrap = %+v, %v", svc, err)
		}
		bad := []store.BootstrapInput{
			{OrgName: "X", Email: "admin@example.com", Environment: "sandbox"}, // email taken (any org)
			{OrgName: "X", Email: "x@example.com", Environment: "prod"},
			{OrgName: "X", Email: "x@example.com", Role: "owner", Environment: "sandbox"},
			{OrgName: "X", Email: "not-an-email", Environment: "sandbox"},
			{OrgID: "org_missing", Email: "y@example.com", Environment: "sandbox"},
			{OrgName: "X", ServiceSlug: "svc", Environment: "sandbox"}, // service key without scopes
			{OrgName: "X", Email: "z@example.com", Scopes: []string{"everything"}, Environment: "sandbox"},
			{OrgName: "X", Environment: "sandbox"},
		}
		for _, in := range bad {
			if _, err := s.Orgs.Bootstrap(ctx, in); err == nil {
				t.Errorf("Bootstrap(%+v) accepted", in)
			}
		}
		var orgs int64
		s.DB.Model(&store.Organization{}).Count(&orgs)
		if orgs != 1 {
			t.Fatalf("failed bootstraps left %d organisations, want 1", orgs)
		}
	})
}

func TestAPIKeyLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
		k, secret, err := s.Keys.Issue(ctx, store.NewAPIKey{OrgID: "org_a", Name: "ci", Environment: "sandbox", Scopes: []string{"read"}, Now: now})
		if err != nil || k.Status(now) != store.KeyActive || auth.HashKey(secret) != k.Hash || k.Last4 != secret[len(secret)-4:] {
			t.Fatalf("issue = %+v, %v", k, err)
		}
		name := "ci-2"
		up, err := s.Keys.Update(ctx, "org_a", k.ID, store.APIKeyChanges{Name: &name, Scopes: []string{"write"}, Now: now})
		if err != nil || up.Name != "ci-2" || up.Scopes[0] != "write" {
			t.Fatalf("update = %+v, %v", up, err)
		}
		if _, err := s.Keys.Update(ctx, "org_b", k.ID, store.APIKeyChanges{Name: &name, Now: now}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("update across organisations: %v", err)
		}
		got, _ := s.Keys.Get(ctx, "org_a", k.ID)
		if got.Scopes[0] != "write" || got.Name != "ci-2" {
			t.Fatalf("update not stored: %+v", got)
		}
		next, secret2, old, err := s.Keys.Rotate(ctx, "org_a", k.ID, now, 24*time.Hour)
		if err != nil || secret2 == secret || next.Name != "ci-2" || old.RotatedToID != next.ID || !old.RevokesAt.Equal(now.Add(24*time.Hour)) {
			t.Fatalf("rotate = %+v %+v, %v", next, old, err)
		}
		if st := old.Status(now.Add(23 * time.Hour)); st != store.KeyRotated {
			t.Fatalf("old key within grace: %s", st)
		}
		if st := old.Status(now.Add(24 * time.Hour)); st != store.KeyRevoked {
			t.Fatalf("old key after grace: %s", st)
		}
		if _, _, _, err := s.Keys.Rotate(ctx, "org_a", k.ID, now, 24*time.Hour); !errors.Is(err, store.ErrKeyNotActive) {
			t.Fatalf("second rotation of the old key: %v", err)
		}
		rev, err := s.Keys.Revoke(ctx, "org_a", next.ID, now)
		if err != nil || rev.Status(now) != store.KeyRevoked {
			t.Fatalf("revoke = %+v, %v", rev, err)
		}
		if _, err := s.Keys.Revoke(ctx, "org_b", k.ID, now); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoke across organisations: %v", err)
		}
		rows, total, err := s.Keys.List(ctx, "org_a", store.Offset{Page: 1, Limit: 10}, store.Filter{})
		if err != nil || total != 2 || len(rows) != 2 {
			t.Fatalf("list = %d/%d, %v", len(rows), total, err)
		}
	})
}

func TestConcurrentRotationYieldsOneSuccessor(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		k, _, err := s.Keys.Issue(ctx, store.NewAPIKey{OrgID: "org_a", Name: "ci", Environment: "sandbox", Scopes: []string{"read"}, Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok := 0
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, _, _, err := s.Keys.Rotate(ctx, "org_a", k.ID, time.Now(), time.Hour); err == nil {
					mu.Lock()
					ok++
					mu.Unlock()
				} else if !errors.Is(err, store.ErrKeyNotActive) && !isSerialization(err) {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		var n int64
		s.DB.Model(&store.APIKey{}).Count(&n)
		if ok != 1 || n != 2 {
			t.Fatalf("%d rotations succeeded, %d keys exist; want 1 and 2", ok, n)
		}
	})
}

// isSerialization reports a PostgreSQL serialization/deadlock abort, which a client may retry.
func isSerialization(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "40001") || strings.Contains(err.Error(), "40P01"))
}

func TestUsersAndSessions(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := time.Now().UTC()
		u := &store.User{ID: ids.New(ids.User), OrgID: "org_a", Email: " Ann@Example.COM ", Role: "viewer"}
		if err := s.Users.Create(ctx, u); err != nil || u.Email != "ann@example.com" {
			t.Fatalf("create = %+v, %v", u, err)
		}
		// Emails are unique across organisations: login finds the organisation by email.
		if err := s.Users.Create(ctx, &store.User{ID: ids.New(ids.User), OrgID: "org_b", Email: "ANN@example.com", Role: "viewer"}); !errors.Is(err, store.ErrEmailTaken) {
			t.Fatalf("same email in another org: %v", err)
		}
		if got, err := s.Users.ByEmail(ctx, "ann@EXAMPLE.com"); err != nil || got.ID != u.ID {
			t.Fatalf("UserByEmail = %+v, %v", got, err)
		}
		sess := &store.Session{ID: ids.New(ids.Session), OrgID: "org_a", UserID: u.ID, TokenHash: "h1", CSRFToken: "c", ExpiresAt: now.Add(time.Hour), CreatedAt: now}
		if err := s.Sessions.Create(ctx, sess); err != nil {
			t.Fatal(err)
		}
		got, err := s.Sessions.ByTokenHash(ctx, "h1")
		if err != nil || !got.Active(now) || got.Active(now.Add(time.Hour)) {
			t.Fatalf("session = %+v, %v", got, err)
		}
		// The dashboard's lookup: the session and its user in one query.
		js, ju, err := s.Sessions.ByTokenHashWithUser(ctx, "h1")
		if err != nil || js.ID != sess.ID || js.CSRFToken != "c" || !js.Active(now) || ju.ID != u.ID || ju.Role != u.Role || ju.Email != u.Email || ju.Disabled {
			t.Fatalf("session with user = %+v %+v, %v", js, ju, err)
		}
		if _, _, err := s.Sessions.ByTokenHashWithUser(ctx, "h-unknown"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown token: %v", err)
		}
		yes := true
		if _, err := s.Users.Update(ctx, "org_b", u.ID, store.UserChanges{Disabled: &yes, Now: now}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("update across organisations: %v", err)
		}
		up, err := s.Users.Update(ctx, "org_a", u.ID, store.UserChanges{Disabled: &yes, Now: now})
		if err != nil || !up.Disabled {
			t.Fatalf("disable = %+v, %v", up, err)
		}
		if got, _ := s.Sessions.ByTokenHash(ctx, "h1"); got.Active(now) {
			t.Fatal("disabling a user must end their sessions")
		}
		if _, ju, err := s.Sessions.ByTokenHashWithUser(ctx, "h1"); err != nil || !ju.Disabled {
			t.Fatalf("session with a disabled user = %+v, %v", ju, err)
		}
		rows, total, err := s.Users.List(ctx, "org_a", store.Offset{Page: 1, Limit: 20}, store.Filter{Q: "ANN"})
		if err != nil || total != 1 || rows[0].ID != u.ID {
			t.Fatalf("list = %v %d %v", rows, total, err)
		}
	})
}

func TestHitRateLimitIsAtomic(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var wg sync.WaitGroup
		seen := make(chan int64, 40)
		for i := 0; i < 40; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := s.RateLimits.Hit(ctx, "read:key_a", 600, 660)
				if err != nil {
					t.Error(err)
					return
				}
				seen <- n
			}()
		}
		wg.Wait()
		close(seen)
		got := map[int64]bool{}
		for n := range seen {
			if got[n] {
				t.Fatalf("count %d returned twice: the upsert is not atomic", n)
			}
			got[n] = true
		}
		if len(got) != 40 || !got[1] || !got[40] {
			t.Fatalf("counts = %v", got)
		}
		if s.Dialect == "postgres" {
			var persistence string
			s.DB.Raw("SELECT relpersistence FROM pg_class WHERE oid = to_regclass('rate_limit_counters')").Scan(&persistence)
			if persistence != "u" {
				t.Fatalf("rate_limit_counters persistence %q, want unlogged", persistence)
			}
			if err := s.Migrate(ctx); err != nil { // migrating again is a no-op
				t.Fatal(err)
			}
		}
		if n, _ := s.RateLimits.Hit(ctx, "read:key_a", 660, 720); n != 1 {
			t.Fatalf("a new window starts at 1, got %d", n)
		}
		if err := s.RateLimits.PurgeCounters(ctx, time.Unix(700, 0)); err != nil {
			t.Fatal(err)
		}
		var left int64
		s.DB.Model(&store.RateLimitCounter{}).Count(&left)
		if left != 1 {
			t.Fatalf("purge left %d rows, want 1", left)
		}
		if err := s.RateLimits.SetOverride(ctx, store.RateLimitOverride{OrgID: "org_a", Bucket: "evaluate", MaxRequests: 5000, WindowSeconds: 60}); err != nil {
			t.Fatal(err)
		}
		if err := s.RateLimits.SetOverride(ctx, store.RateLimitOverride{OrgID: "org_a", Bucket: "evaluate", MaxRequests: 9000, WindowSeconds: 60}); err != nil {
			t.Fatal(err)
		}
		ov, err := s.RateLimits.Overrides(ctx, "org_a")
		if err != nil || len(ov) != 1 || ov[0].MaxRequests != 9000 {
			t.Fatalf("overrides = %+v, %v", ov, err)
		}
	})
}

func TestClaimIdempotency(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := time.Now()
		rec := func(id string) *store.IdempotencyRecord {
			return &store.IdempotencyRecord{ID: id, OrgID: "org_a", Environment: "sandbox", Endpoint: "POST /api/users",
				ExternalID: "e1", RequestHash: "h", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		owners := 0
		for i := 0; i < 10; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				existing, err := s.Idempotency.Claim(ctx, rec(ids.New(ids.Audit)))
				if err != nil {
					t.Error(err)
					return
				}
				if existing == nil {
					mu.Lock()
					owners++
					mu.Unlock()
				}
			}(i)
		}
		wg.Wait()
		if owners != 1 {
			t.Fatalf("%d claimers own the record, want 1", owners)
		}
		existing, _ := s.Idempotency.Claim(ctx, rec("x"))
		if err := s.Idempotency.Complete(ctx, existing.ID, 201, []byte(`{"data":{"id":"usr_1"}}`)); err != nil {
			t.Fatal(err)
		}
		done, _ := s.Idempotency.Get(ctx, existing.ID)
		if done.State != store.IdempotencyDone || done.Status != 201 || string(done.Body) != `{"data":{"id":"usr_1"}}` {
			t.Fatalf("completed = %+v", done)
		}
		if err := s.Idempotency.Purge(ctx, now.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Idempotency.Claim(ctx, rec("y")); err != nil || got != nil {
			t.Fatalf("after purge the key is free: %+v, %v", got, err)
		}
	})
}
