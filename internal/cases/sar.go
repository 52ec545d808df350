package cases

import "github.com/svcplatform/svc/internal/statemachine"

// SARStatus is where a suspicious activity report stands.
type SARStatus string

// SAR filing statuses.
const (
	SARDraft        SARStatus = "draft"
	SARSubmitted    SARStatus = "submitted"
	SARAcknowledged SARStatus = "acknowledged"
	SARRejected     SARStatus = "rejected"
)

// SARFilings is the SAR filing's transition table: a submitted filing is immutable and only
// the regulator's answer moves it on.
var SARFilings = statemachine.New("sar filing", SARDraft,
	[]SARStatus{SARDraft, SARSubmitted, SARAcknowledged, SARRejected},
	statemachine.Move[SARStatus]{From: SARDraft, To: SARSubmitted, By: "submit (a second user)"},
	statemachine.Move[SARStatus]{From: SARSubmitted, To: SARAcknowledged, By: "regulator acknowledged"},
	statemachine.Move[SARStatus]{From: SARSubmitted, To: SARRejected, By: "regulator rejected"},
)
