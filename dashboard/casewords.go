package dashboard

import (
	"strings"

	casesapi "github.com/svcplatform/svc/api/cases"
	"github.com/svcplatform/svc/workflows"
	casewf "github.com/svcplatform/svc/workflows/cases"
)

// The cases product's refusals in plain words. They need their own place: the API's
// four-eyes message for a SAR filing is the same words as an execution's approval
// (workflows.FourEyesMessage), which plainWords explains for approvals.

// caseWords says why the API refused an action on a case.
func caseWords(a answer, role string) string {
	switch a.Message() {
	case casewf.ProposerCannotApprove:
		return "You proposed this closure, so you cannot approve or reject it yourself: another person must decide it (four-eyes rule)."
	case casewf.OnlyApproversDecide:
		return "Only a reviewer or an admin may approve or reject a closure; your role is " + role + ", so you cannot decide it."
	case casesapi.MsgAlertTaken:
		return "One of these alerts is already in another case; open the case without it, or work on that case."
	}
	return plainWords(a, role)
}

// sarWords says why the API refused an action on a SAR filing.
func sarWords(a answer, role string) string {
	switch msg := a.Message(); {
	case msg == workflows.FourEyesMessage:
		return "You drafted this filing, so you cannot submit it yourself: another person must submit it (four-eyes rule)."
	case msg == casesapi.MsgIncomplete:
		return "This filing is not complete: its drafter fills in the amount, the currency and the narrative before anyone submits it."
	case strings.HasPrefix(msg, "state conflict: filing is "):
		return "This filing is " + strings.TrimSuffix(strings.TrimPrefix(msg, "state conflict: filing is "), " and can no longer change") +
			" and can no longer change; reload to see it."
	}
	return caseWords(a, role)
}
