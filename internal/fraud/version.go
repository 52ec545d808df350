package fraud

import (
	"errors"

	"github.com/svcplatform/svc/internal/statemachine"
)

// VersionStatus is the state of a rule set version.
type VersionStatus string

// The states of a rule set version.
const (
	VersionDraft           VersionStatus = "draft"
	VersionPendingApproval VersionStatus = "pending_approval"
	VersionApproved        VersionStatus = "approved"
	VersionPublished       VersionStatus = "published"
	VersionRejected        VersionStatus = "rejected"
	// VersionRetired is a version that was published until another one was: a rule set has
	// one published version at a time.
	VersionRetired VersionStatus = "retired"
)

// Action is something done to a version, with the four-eyes rules it carries. The store
// enforces them in the conditional write that moves the row (status IN From-states, and the
// actor is not the drafter when NotDrafter), so two concurrent requests cannot both pass.
type Action struct {
	// Name is the endpoint's last path segment (submit, approve, reject, publish).
	Name string
	From VersionStatus
	To   VersionStatus
	// BoundUser requires an API key bound to a user (SPEC 5.5): the act needs an accountable human.
	BoundUser bool
	// NotDrafter requires the acting user to differ from the version's drafter (four eyes).
	NotDrafter bool
}

// The actions on a version. Every move of the version table comes from here, so the actions
// and the transition table cannot disagree.
var (
	ActionSubmit  = Action{Name: "submit", From: VersionDraft, To: VersionPendingApproval, BoundUser: true}
	ActionApprove = Action{Name: "approve", From: VersionPendingApproval, To: VersionApproved, BoundUser: true, NotDrafter: true}
	ActionReject  = Action{Name: "reject", From: VersionPendingApproval, To: VersionRejected, BoundUser: true, NotDrafter: true}
	ActionPublish = Action{Name: "publish", From: VersionApproved, To: VersionPublished, BoundUser: true}
	// actionRetire is not an endpoint: publishing a version retires the one published before.
	actionRetire = Action{Name: "retire", From: VersionPublished, To: VersionRetired}
)

// Actions lists the endpoint actions on a version.
var Actions = []Action{ActionSubmit, ActionApprove, ActionReject, ActionPublish}

// Versions is the one transition table of rule set versions:
// draft → pending_approval → approved → published → retired, or pending_approval → rejected.
var Versions = statemachine.New("ruleset version", VersionDraft,
	[]VersionStatus{VersionDraft, VersionPendingApproval, VersionApproved, VersionPublished, VersionRejected, VersionRetired},
	moves(append(Actions, actionRetire))...)

func moves(actions []Action) []statemachine.Move[VersionStatus] {
	out := make([]statemachine.Move[VersionStatus], len(actions))
	for i, a := range actions {
		by := "POST …/versions/{version}/" + a.Name
		if a == actionRetire {
			by = "another version is published"
		}
		out[i] = statemachine.Move[VersionStatus]{From: a.From, To: a.To, By: by}
	}
	return out
}

// ActionNamed finds an endpoint action by name.
func ActionNamed(name string) (Action, bool) {
	for _, a := range Actions {
		if a.Name == name {
			return a, true
		}
	}
	return Action{}, false
}

// Errors of the four-eyes rules; the API answers both with 422 (SPEC 5.5, 7.3).
var (
	ErrNotBoundToUser = errors.New("api_key_not_bound_to_user")
	ErrFourEyes       = errors.New("four-eyes violation: drafter cannot submit")
)

// Authorize checks action by actorUserID ("" for a key bound to no user) on a version in
// status drafted by drafterID: nil, ErrNotBoundToUser, ErrFourEyes or a *statemachine.ConflictError.
// The store repeats the same conditions in its conditional write; this gives the precise error.
func (a Action) Authorize(status VersionStatus, drafterID, actorUserID string) error {
	if a.BoundUser && actorUserID == "" {
		return ErrNotBoundToUser
	}
	if err := Versions.Check(status, a.To); err != nil {
		return err
	}
	if a.NotDrafter && actorUserID == drafterID {
		return ErrFourEyes
	}
	return nil
}

// Mutable reports whether a version in status can still be edited: only a draft can; a
// published version is immutable (409).
func Mutable(status VersionStatus) bool { return status == VersionDraft }
