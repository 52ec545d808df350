package fraud

import (
	"errors"
	"testing"

	"github.com/svcplatform/svc/internal/statemachine"
)

func TestVersionTableAllowsOnlyTheLifeCycle(t *testing.T) {
	allowed := map[[2]VersionStatus]bool{
		{VersionDraft, VersionPendingApproval}: true, {VersionPendingApproval, VersionApproved}: true,
		{VersionPendingApproval, VersionRejected}: true, {VersionApproved, VersionPublished}: true,
		{VersionPublished, VersionRetired}: true,
	}
	for _, from := range Versions.States() {
		for _, to := range Versions.States() {
			err := Versions.Check(from, to)
			if allowed[[2]VersionStatus{from, to}] != (err == nil) {
				t.Errorf("%s → %s: %v", from, to, err)
			}
		}
	}
	if Versions.Initial() != VersionDraft || !Versions.Terminal(VersionRejected) || !Versions.Terminal(VersionRetired) {
		t.Error("initial draft; rejected and retired terminal")
	}
	if !Mutable(VersionDraft) || Mutable(VersionPublished) || Mutable(VersionApproved) {
		t.Error("only drafts are mutable")
	}
}

func TestAuthorizeFourEyes(t *testing.T) {
	cases := []struct {
		action        Action
		status        VersionStatus
		drafter, user string
		want          error
		conflict      string
	}{
		{ActionSubmit, VersionDraft, "usr_a", "usr_a", nil, ""},
		{ActionSubmit, VersionDraft, "usr_a", "", ErrNotBoundToUser, ""},
		{ActionApprove, VersionPendingApproval, "usr_a", "usr_a", ErrFourEyes, ""},
		{ActionReject, VersionPendingApproval, "usr_a", "usr_a", ErrFourEyes, ""},
		{ActionApprove, VersionPendingApproval, "usr_a", "usr_b", nil, ""},
		{ActionApprove, VersionPendingApproval, "usr_a", "", ErrNotBoundToUser, ""},
		{ActionApprove, VersionDraft, "usr_a", "usr_b", nil, "state conflict: cannot transition draft → approved"},
		{ActionPublish, VersionApproved, "usr_a", "usr_a", nil, ""},
		{ActionPublish, VersionPublished, "usr_a", "usr_b", nil, "state conflict: cannot transition published → published"},
		{ActionSubmit, VersionRejected, "usr_a", "usr_a", nil, "state conflict: cannot transition rejected → pending_approval"},
	}
	for _, c := range cases {
		err := c.action.Authorize(c.status, c.drafter, c.user)
		if c.conflict != "" {
			var conflict *statemachine.ConflictError
			if !errors.As(err, &conflict) || err.Error() != c.conflict {
				t.Errorf("%s from %s: %v, want %q", c.action.Name, c.status, err, c.conflict)
			}
			continue
		}
		if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
			t.Errorf("%s from %s by %q (drafter %q): %v, want %v", c.action.Name, c.status, c.user, c.drafter, err, c.want)
		}
	}
	if ErrFourEyes.Error() != "four-eyes violation: drafter cannot submit" || ErrNotBoundToUser.Error() != "api_key_not_bound_to_user" {
		t.Error("SPEC 7.3 error strings")
	}
	for _, a := range Actions {
		if got, ok := ActionNamed(a.Name); !ok || got != a {
			t.Errorf("ActionNamed(%s)", a.Name)
		}
		if Versions.Sources(a.To)[0] != a.From {
			t.Errorf("%s: table sources %v", a.Name, Versions.Sources(a.To))
		}
	}
	if _, ok := ActionNamed("retire"); ok {
		t.Error("retire is not an endpoint")
	}
}
