package store_test

import (
	"context"
	"testing"

	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// TestBootstrapDefaultUsersNeverCollide: organisations bootstrapped without an email each get a
// default user of their own, beside one that already took admin@svc.local (svc dev's).
func TestBootstrapDefaultUsersNeverCollide(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if _, err := s.Orgs.Bootstrap(ctx, store.BootstrapInput{OrgName: "Dev", Email: "admin@svc.local", Environment: "sandbox"}); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{"admin@svc.local": true}
		for _, name := range []string{"A", "B", "C"} {
			res, err := s.Orgs.Bootstrap(ctx, store.BootstrapInput{OrgName: name, DefaultUser: true, Environment: "sandbox"})
			if err != nil {
				t.Fatalf("org %s: %v", name, err)
			}
			if res.User == nil || res.User.Email != store.DefaultUserEmail(res.Org.ID) || res.Key.ActAsUserID != res.User.ID {
				t.Fatalf("org %s: default user %+v, key %+v", name, res.User, res.Key)
			}
			if !store.ValidEmail(res.User.Email) || seen[res.User.Email] {
				t.Fatalf("org %s: default email %q invalid or reused", name, res.User.Email)
			}
			seen[res.User.Email] = true
			if u, err := s.Users.ByEmail(ctx, res.User.Email); err != nil || u.OrgID != res.Org.ID {
				t.Fatalf("login lookup of %s = %+v, %v", res.User.Email, u, err)
			}
		}
		for _, in := range []store.BootstrapInput{
			{OrgID: "org_x", DefaultUser: true, Environment: "sandbox"},                       // only for a new organisation
			{OrgName: "X", DefaultUser: true, Email: "x@example.com", Environment: "sandbox"}, // one or the other
			{OrgName: "X", DefaultUser: true, ServiceSlug: "svc", Environment: "sandbox"},     // a service key has no user
		} {
			if _, err := s.Orgs.Bootstrap(ctx, in); err == nil {
				t.Errorf("Bootstrap(%+v) accepted", in)
			}
		}
	})
}
