package dashboard

import (
	"net/http"
	"strings"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/workflows"
)

// plainWords says why the API refused, for a person: the API's messages are written for
// programs. role is the visitor's role.
func plainWords(a answer, role string) string {
	msg := a.Message()
	switch {
	case msg == workflows.FourEyesMessage && strings.HasPrefix(a.Path, "/api/rulesets/"):
		return "You drafted this version, so you cannot approve or reject it yourself: another person must decide it (four-eyes rule)."
	case msg == workflows.FourEyesMessage:
		return "You started this execution, so you cannot decide its approval yourself: another person must approve or reject it (four-eyes rule)."
	case strings.HasPrefix(msg, "missing role: "):
		return "This approval is for the " + strings.TrimPrefix(msg, "missing role: ") + " role; your role is " + role + ", so you cannot decide it."
	case strings.HasPrefix(msg, "approval is assigned to "):
		return "This approval is assigned to another person (" + strings.TrimPrefix(msg, "approval is assigned to ") + "); only they can decide it."
	case strings.HasPrefix(msg, "missing scope: "):
		return "Your role (" + role + ") does not allow this: it needs the permission " + strings.TrimPrefix(msg, "missing scope: ") + "."
	case msg == api.MsgCapability:
		return "Your organisation does not use this product."
	case msg == api.MsgCSRF:
		return "This form has expired. Reload the page and try again."
	case strings.HasPrefix(msg, "state conflict: cannot transition "):
		return "This has already changed (" + strings.TrimPrefix(msg, "state conflict: cannot transition ") + "); reload to see where it is now."
	}
	switch a.Status {
	case http.StatusBadRequest:
		if len(a.FieldErrors()) > 0 {
			return "Some fields need fixing; see the notes next to them."
		}
	case http.StatusTooManyRequests:
		return "Too many requests in a short time. Wait a minute and try again."
	case http.StatusServiceUnavailable:
		return "The service is unavailable right now. Try again in a moment."
	case http.StatusInternalServerError:
		return "Something failed on our side. Try again; if it keeps failing, quote request id " + a.Header.Get(api.HeaderRequestID) + "."
	}
	if msg == "" {
		return http.StatusText(a.Status)
	}
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}
