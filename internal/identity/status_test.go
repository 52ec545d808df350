package identity_test

import (
	"errors"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/internal/statemachine"
)

func TestTransitionTable(t *testing.T) {
	type S = identity.Status
	allowed := map[[2]S]bool{
		{identity.StatusRequiresInput, identity.StatusProcessing}:         true,
		{identity.StatusResubmissionRequested, identity.StatusProcessing}: true,
		{identity.StatusProcessing, identity.StatusVerified}:              true,
		{identity.StatusProcessing, identity.StatusRejected}:              true,
		{identity.StatusProcessing, identity.StatusReview}:                true,
		{identity.StatusProcessing, identity.StatusResubmissionRequested}: true,
		{identity.StatusReview, identity.StatusVerified}:                  true,
		{identity.StatusReview, identity.StatusRejected}:                  true,
		{identity.StatusReview, identity.StatusResubmissionRequested}:     true,
		{identity.StatusRequiresInput, identity.StatusExpired}:            true,
		{identity.StatusResubmissionRequested, identity.StatusExpired}:    true,
	}
	states := identity.Table.States()
	if len(states) != 7 {
		t.Fatalf("%d states, want 7", len(states))
	}
	for _, from := range states {
		for _, to := range states {
			err := identity.Table.Check(from, to)
			if allowed[[2]S{from, to}] {
				if err != nil {
					t.Errorf("%s → %s refused: %v", from, to, err)
				}
				continue
			}
			var c *statemachine.ConflictError
			if !errors.As(err, &c) || err.Error() != "state conflict: cannot transition "+string(from)+" → "+string(to) {
				t.Errorf("%s → %s: %v, want the state conflict", from, to, err)
			}
		}
	}
	for _, s := range []S{identity.StatusVerified, identity.StatusRejected, identity.StatusExpired} {
		if !s.Terminal() {
			t.Errorf("%s is not terminal", s)
		}
	}
}

func TestVerificationLifecycle(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	v := identity.New(identity.Policy{DocumentTypes: []string{"passport"}, MaxAttempts: 2, TimeToCompleteSeconds: 3600}, now)
	if v.Status != identity.StatusRequiresInput || !v.ExpiresAt.Equal(now.Add(time.Hour)) {
		t.Fatalf("new verification %+v", v)
	}
	if n, err := v.Submit(); err != nil || n != 1 {
		t.Fatalf("first attempt: %d %v", n, err)
	}
	if _, err := v.Submit(); err == nil || err.Error() != "state conflict: cannot transition processing → processing" {
		t.Errorf("a second attempt while processing: %v", err)
	}
	if err := v.Complete(identity.Outcome{Status: identity.StatusResubmissionRequested}); err != nil {
		t.Fatal(err)
	}
	if err := v.Expire(now); err == nil {
		t.Error("expired before its time")
	}
	if n, err := v.Submit(); err != nil || n != 2 {
		t.Fatalf("second attempt: %d %v", n, err)
	}
	if err := v.Complete(identity.Outcome{Status: identity.StatusReview}); err != nil {
		t.Fatal(err)
	}
	if err := v.Review(identity.DecisionRequestResubmission); !errors.Is(err, identity.ErrNoAttemptsLeft) {
		t.Errorf("resubmission with no attempts left: %v", err)
	}
	if err := v.Review(identity.DecisionApprove); err != nil || v.Status != identity.StatusVerified {
		t.Fatalf("approve: %v %s", err, v.Status)
	}
	if err := v.Review(identity.DecisionReject); err == nil || err.Error() != "state conflict: cannot transition verified → rejected" {
		t.Errorf("second decision: %v", err)
	}
	if err := v.Expire(now.Add(2 * time.Hour)); err == nil || err.Error() != "state conflict: cannot transition verified → expired" {
		t.Errorf("expire a verified one: %v", err)
	}

	w := identity.New(identity.Policy{DocumentTypes: []string{"ktp"}}, now)
	if w.Policy.MaxAttempts != identity.DefaultMaxAttempts || !w.ExpiresAt.Equal(now.Add(identity.DefaultTimeToComplete)) {
		t.Errorf("defaults not applied: %+v", w)
	}
	if err := w.Expire(w.ExpiresAt); err != nil || w.Status != identity.StatusExpired {
		t.Errorf("expire at the deadline: %v %s", err, w.Status)
	}
}

func TestPolicyAndClaimValidation(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if fe := (identity.Policy{DocumentTypes: []string{"passport", "ktp"}, MinimumAge: 18}).Validate("policy"); fe != nil {
		t.Errorf("valid policy refused: %v", fe)
	}
	fe := identity.Policy{DocumentTypes: []string{"npwp", "ktp", "ktp"}, MinimumAge: -1, MaxAttempts: 99, TimeToCompleteSeconds: 5}.Validate("policy")
	for _, k := range []string{"policy.documentTypes[0]", "policy.documentTypes[2]", "policy.minimumAge", "policy.maxAttempts", "policy.timeToCompleteSeconds"} {
		if len(fe[k]) == 0 {
			t.Errorf("no error at %s: %v", k, fe)
		}
	}
	if fe := (identity.Policy{}).Validate("policy"); len(fe["policy.documentTypes"]) == 0 {
		t.Errorf("empty documentTypes accepted: %v", fe)
	}
	ok := identity.Claimed{FullName: "Siti Rahayu", BirthDate: "1990-06-05", Nationality: "IDN", DocumentNumber: "3174054506900003"}
	if fe := ok.Validate("claimed", now); fe != nil {
		t.Errorf("valid claim refused: %v", fe)
	}
	bad := identity.Claimed{FullName: "R2D2", BirthDate: "2030-01-01", Nationality: "id", DocumentNumber: "<script>"}
	fe = bad.Validate("claimed", now)
	for _, k := range []string{"claimed.fullName", "claimed.birthDate", "claimed.nationality", "claimed.documentNumber"} {
		if len(fe[k]) == 0 {
			t.Errorf("no error at %s: %v", k, fe)
		}
	}
	if fe := (identity.Claimed{BirthDate: "05/06/1990"}).Validate("claimed", now); len(fe["claimed.fullName"]) == 0 || len(fe["claimed.birthDate"]) == 0 {
		t.Errorf("missing name and bad date accepted: %v", fe)
	}
}

func TestAttemptTable(t *testing.T) {
	if err := identity.AttemptTable.Check(identity.AttemptProcessing, identity.AttemptCompleted); err != nil {
		t.Error(err)
	}
	if err := identity.AttemptTable.Check(identity.AttemptCompleted, identity.AttemptFailed); err == nil ||
		err.Error() != "state conflict: cannot transition completed → failed" {
		t.Errorf("completed → failed: %v", err)
	}
}
