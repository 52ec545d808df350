package cases

import (
	"slices"

	"github.com/svcplatform/svc/internal/statemachine"
)

// State is where a case stands.
type State string

// Case states.
const (
	StateOpen          State = "open"
	StateInvestigating State = "investigating"
	StatePendingClose  State = "pending_close"
	StateClosed        State = "closed"
	StateEscalated     State = "escalated"
)

// Lifecycle is the case's transition table. Each move is one action of the case workflow;
// closing takes two people (propose, then approve by someone else).
var Lifecycle = statemachine.New("case", StateOpen,
	[]State{StateOpen, StateInvestigating, StatePendingClose, StateClosed, StateEscalated},
	statemachine.Move[State]{From: StateOpen, To: StateInvestigating, By: "assign"},
	statemachine.Move[State]{From: StateEscalated, To: StateInvestigating, By: "assign"},
	statemachine.Move[State]{From: StateOpen, To: StateEscalated, By: "escalate / overdue"},
	statemachine.Move[State]{From: StateInvestigating, To: StateEscalated, By: "escalate / overdue"},
	statemachine.Move[State]{From: StateInvestigating, To: StatePendingClose, By: "propose-close"},
	statemachine.Move[State]{From: StateEscalated, To: StatePendingClose, By: "propose-close"},
	statemachine.Move[State]{From: StatePendingClose, To: StateClosed, By: "approve-close (second user)"},
	statemachine.Move[State]{From: StatePendingClose, To: StateInvestigating, By: "reject-close (second user)"},
	statemachine.Move[State]{From: StateClosed, To: StateInvestigating, By: "reopen"},
)

// Action is one thing a person (or the due-date timer) does to a case.
type Action string

// Case actions: the moves of Lifecycle, plus assign and update which may keep the state.
const (
	ActionAssign       Action = "assign"
	ActionEscalate     Action = "escalate"
	ActionProposeClose Action = "propose-close"
	ActionApproveClose Action = "approve-close"
	ActionRejectClose  Action = "reject-close"
	ActionReopen       Action = "reopen"
	// ActionUpdate changes title, priority or due date; it never moves the state.
	ActionUpdate Action = "update"
)

// Target is the state an action moves a case in state from to; ok is false when the action
// keeps the state (assign while investigating, update).
func Target(a Action, from State) (to State, ok bool) {
	switch a {
	case ActionAssign:
		if from == StateOpen || from == StateEscalated {
			return StateInvestigating, true
		}
		return from, from == StateInvestigating // assign re-assigns an investigation in place
	case ActionEscalate:
		return StateEscalated, true
	case ActionProposeClose:
		return StatePendingClose, true
	case ActionApproveClose:
		return StateClosed, true
	case ActionRejectClose:
		// Only a proposed closure can be rejected: elsewhere the move to investigating is
		// another action's (assign, reopen), not this one's.
		return StateInvestigating, from == StatePendingClose
	case ActionReopen:
		return StateInvestigating, from == StateClosed
	}
	return from, false
}

// Outcome is how a closed case ended.
type Outcome string

// Case outcomes.
const (
	OutcomeFalsePositive Outcome = "false_positive"
	OutcomeValuableAlert Outcome = "valuable_alert"
	OutcomeConfirmedRisk Outcome = "confirmed_risk"
)

// Outcomes lists every outcome.
func Outcomes() []string {
	return []string{string(OutcomeFalsePositive), string(OutcomeValuableAlert), string(OutcomeConfirmedRisk)}
}

// ValidOutcome reports whether o is an outcome.
func ValidOutcome(o string) bool { return slices.Contains(Outcomes(), o) }

// Priorities lists the priorities of a case, lowest first.
func Priorities() []string { return []string{"low", "medium", "high", "critical"} }

// DefaultPriority is a case's priority when nobody gave one.
const DefaultPriority = "medium"

// ValidPriority reports whether p is a priority.
func ValidPriority(p string) bool { return slices.Contains(Priorities(), p) }

// EvidenceKinds are the records a case may link as evidence, by their id prefix.
var EvidenceKinds = map[string]string{
	"scr": "screening", "dec": "decision", "doc": "document", "exe": "execution", "ana": "analysis",
	"att": "identity_attempt", "idv": "identity_verification", "alr": "alert",
}

// ApproverRoles are the roles that may approve or reject a closure and submit a SAR: a second
// pair of eyes is a reviewer's (or an admin's) job.
var ApproverRoles = []string{"reviewer", "admin"}

// MayApprove reports whether a user of role may be the second pair of eyes.
func MayApprove(role string) bool { return slices.Contains(ApproverRoles, role) }
