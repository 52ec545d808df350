package orchestration

import (
	"fmt"
	"strings"
	"time"
)

// HumanApproval is the "human_approval" kind: the run waits until a person with the right
// role approves or rejects. Config:
//
//	{"actionLabel": "Approve payout of {{ inputs.amount }} EUR", "assignTo": "role:reviewer",
//	 "data": {"customer": "{{ inputs.customerId }}"}, "timeout": "48h", "onTimeout": "reject"}
//
// assignTo is "role:<role>" (the resolver must hold the role) or "user:<usr_ id>" (only that
// user may resolve). actionLabel and data are templates. With a timeout the approval
// resolves as rejected when it expires (onTimeout "reject", the only choice so far). next:
// {"approve": "<node id>", "reject": "<node id>"}, both optional: an approval without an
// approve route ends the run, one without a reject route fails it when rejected. The output
// is {"decision": "approve"|"reject", "actorUserId", "comment", "timedOut"}.
type HumanApproval struct{}

// Approval decisions, which are also the branch names of a human_approval node.
const (
	DecisionApprove = "approve"
	DecisionReject  = "reject"
)

// Name implements Kind.
func (HumanApproval) Name() string { return "human_approval" }

// Routes implements Kind.
func (HumanApproval) Routes() Routes {
	return Routes{Branches: []string{DecisionApprove, DecisionReject}}
}

// Compile implements Kind.
func (HumanApproval) Compile(r *ConfigReader) Step {
	s := &approvalStep{}
	if s.label = r.Template("actionLabel", true); s.label != nil {
		if v, literal := s.label.Literal(); !textual(s.label.root) || literal && strings.TrimSpace(Text(v)) == "" {
			r.Errorf("actionLabel", "must be a non-empty string")
		}
	}
	s.assignTo = r.String("assignTo", true)
	if s.assignTo != "" {
		if _, _, err := ParseAssignee(s.assignTo); err != nil {
			r.Errorf("assignTo", "%v", err)
		}
	}
	if s.data = r.Template("data", false); s.data != nil {
		if _, ok := s.data.root.(*objectNode); !ok {
			r.Errorf("data", "must be an object")
		}
	}
	s.timeout = r.Duration("timeout", false, 0, time.Second, MaxDelay)
	if r.Has("onTimeout") {
		switch on := r.String("onTimeout", true); {
		case on != "" && on != "reject":
			r.Errorf("onTimeout", `must be "reject"`)
		case !r.Has("timeout"):
			r.Errorf("onTimeout", "needs a timeout")
		}
	}
	return s
}

// Assignee kinds of assignTo.
const (
	AssignRole = "role"
	AssignUser = "user"
)

// ParseAssignee splits an assignTo value into its kind (AssignRole or AssignUser) and name.
func ParseAssignee(s string) (kind, name string, err error) {
	kind, name, ok := strings.Cut(s, ":")
	if !ok || name == "" || (kind != AssignRole && kind != AssignUser) {
		return "", "", fmt.Errorf(`must be "role:<role>" or "user:<user id>", got %q`, s)
	}
	if kind == AssignUser && !strings.HasPrefix(name, "usr_") {
		return "", "", fmt.Errorf("user must be a usr_ id, got %q", name)
	}
	return kind, name, nil
}

// MayResolve reports why an actor with the given roles may not resolve an approval assigned
// to assignTo ("" when it may).
func MayResolve(assignTo, actorUserID string, actorRoles []string) string {
	kind, name, err := ParseAssignee(assignTo)
	if err != nil {
		return err.Error()
	}
	if kind == AssignUser {
		if actorUserID != name {
			return "approval is assigned to " + assignTo
		}
		return ""
	}
	for _, r := range actorRoles {
		if r == name {
			return ""
		}
	}
	return "missing role: " + name
}

type approvalStep struct {
	label    *Template
	assignTo string
	data     *Template
	timeout  time.Duration
}

// Plan renders the label and the reviewer's data.
func (s *approvalStep) Plan(env Env) (Action, error) {
	a := AwaitApproval{AssignTo: s.assignTo, Timeout: s.timeout, Data: map[string]any{}}
	label, err := s.label.Eval(env)
	if err != nil {
		return nil, err
	}
	a.ActionLabel = Text(label)
	if s.data != nil {
		d, err := s.data.Eval(env)
		if err != nil {
			return nil, err
		}
		a.Data, _ = d.(map[string]any)
	}
	return a, nil
}
