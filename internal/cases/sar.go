package cases

import (
	"strings"

	"github.com/svcplatform/svc/internal/statemachine"
)

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

// NoCurrency is ISO 4217's "no currency" code, which a machine-drafted filing carries until a
// person fills in the amount.
const NoCurrency = "XXX"

// SARGaps names, field by field, what a draft still lacks before anyone may submit it: an
// amount, a currency and a narrative. A machine draft (the automation product's) leaves the
// amount and currency to the person who edits it, so submitting it unedited is refused.
func SARGaps(amount float64, currency, narrative string) map[string]string {
	gaps := map[string]string{}
	if !(amount > 0) {
		gaps["amount"] = "must be filled in before the filing is submitted"
	}
	if currency == "" || currency == NoCurrency {
		gaps["currency"] = "must be filled in before the filing is submitted"
	}
	if strings.TrimSpace(narrative) == "" {
		gaps["narrative"] = "must be filled in before the filing is submitted"
	}
	return gaps
}
