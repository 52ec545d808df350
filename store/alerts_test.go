package store_test

import (
	"context"
	"errors"
	"testing"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// TestAlertsRaiseOnce raises the same alert twice (a retried activity) and two alerts of one
// screening about different entities: the first pair is one alert, the second two.
func TestAlertsRaiseOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := newOrg(t, s)
		raise := func(subject string) (*store.Alert, bool) {
			t.Helper()
			a, created, err := s.Alerts.Raise(ctx, &store.Alert{OrgID: org, Source: string(cases.SourceScreening),
				SourceRef: "scr_1", Subject: subject, CustomerID: "cus_1", Score: 0.93, Summary: "hit"})
			if err != nil {
				t.Fatal(err)
			}
			return a, created
		}
		first, created := raise("lst_1/e1")
		if !created || first.Status != string(cases.AlertOpen) {
			t.Fatalf("first raise: created=%v status=%s", created, first.Status)
		}
		again, created := raise("lst_1/e1")
		if created || again.ID != first.ID {
			t.Fatalf("second raise made another alert: created=%v %s vs %s", created, again.ID, first.ID)
		}
		other, created := raise("lst_1/e2")
		if !created || other.ID == first.ID {
			t.Fatalf("a different entity must be its own alert")
		}
		if _, err := s.Alerts.Get(ctx, newOrg(t, s), first.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organisation reads the alert: %v", err)
		}
	})
}

// TestAlertsCloseBySource closes what one record raised and nothing else, and a rolled-back
// transaction leaves no alert behind.
func TestAlertsCloseBySource(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		org := newOrg(t, s)
		a, _, err := s.Alerts.Raise(ctx, &store.Alert{OrgID: org, Source: string(cases.SourceFraud), SourceRef: "dec_1"})
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := s.Alerts.Raise(ctx, &store.Alert{OrgID: org, Source: string(cases.SourceFraud), SourceRef: "dec_2"})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Tx(ctx, func(tx *gorm.DB) error { return store.CloseAlertsBySource(tx, org, cases.SourceFraud, "dec_1") }); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string]cases.AlertStatus{a.ID: cases.AlertClosed, b.ID: cases.AlertOpen} {
			got, err := s.Alerts.Get(ctx, org, id)
			if err != nil || got.Status != string(want) {
				t.Fatalf("alert %s: %v %v, want %s", id, got, err, want)
			}
		}
		boom := errors.New("boom")
		var raised *store.Alert
		err = s.Tx(ctx, func(tx *gorm.DB) error {
			raised, _, err = store.RaiseAlert(tx, &store.Alert{OrgID: org, Source: string(cases.SourceFraud), SourceRef: "dec_3"})
			if err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if _, err := s.Alerts.Get(ctx, org, raised.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("rolled-back alert exists: %v", err)
		}
	})
}
