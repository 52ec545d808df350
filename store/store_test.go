package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

func TestOrganizationsUsersAndKeys(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org, err := s.Orgs.Create(ctx, "Acme")
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Orgs.Get(ctx, org.ID)
		if err != nil || got.Name != "Acme" {
			t.Fatalf("GetOrganization = %+v, %v", got, err)
		}
		u := &store.User{ID: ids.New(ids.User), OrgID: org.ID, Email: "a@example.com", Role: "admin"}
		if err := s.DB.Create(u).Error; err != nil {
			t.Fatal(err)
		}
		dup := &store.User{ID: ids.New(ids.User), OrgID: org.ID, Email: "a@example.com", Role: "viewer"}
		if err := s.DB.Create(dup).Error; !store.IsUniqueViolation(err) {
			t.Fatalf("duplicate email in one org: err = %v, want unique violation", err)
		}
		other, _ := s.Orgs.Create(ctx, "Other")
		if _, err := s.Users.Get(ctx, other.ID, u.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("user of another org: err = %v, want ErrNotFound", err)
		}
		exp := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		k := &store.APIKey{ID: ids.New(ids.APIKey), OrgID: org.ID, Name: "ci", Environment: "sandbox", Hash: "abc", Last4: "WXYZ", Scopes: []string{"read", "webhooks:manage"}, ExpiresAt: &exp}
		if err := s.DB.Create(k).Error; err != nil {
			t.Fatal(err)
		}
		back, err := s.Keys.ByHash(ctx, "abc")
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Scopes) != 2 || back.Scopes[1] != "webhooks:manage" || !back.ExpiresAt.Equal(exp) {
			t.Fatalf("key round trip = %+v", back)
		}
		if _, err := s.Keys.ByHash(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown hash: %v", err)
		}
	})
}

func TestPingLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		p := &store.Ping{ID: ids.New(ids.Execution), OrgID: "org_a", Message: "hi"}
		if err := s.Orchestration.CreatePing(ctx, p); err != nil {
			t.Fatal(err)
		}
		at := time.Now().UTC()
		for i := 0; i < 2; i++ { // an activity can run twice
			if err := s.Orchestration.CompletePing(ctx, "org_a", p.ID, "hi", at); err != nil {
				t.Fatal(err)
			}
		}
		// Another organisation's completion of the same id changes nothing.
		if err := s.Orchestration.CompletePing(ctx, "org_b", p.ID, "forged", at); err != nil {
			t.Fatal(err)
		}
		got, err := s.Orchestration.GetPing(ctx, "org_a", p.ID)
		if err != nil || got.Status != "succeeded" || got.Echo != "hi" {
			t.Fatalf("GetPing = %+v, %v", got, err)
		}
		if _, err := s.Orchestration.GetPing(ctx, "org_b", p.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("foreign org: %v", err)
		}
	})
}
