// Package cases is the case manager: alerts raised by other products (screening hits,
// fraud decisions needing a person), the cases that gather them, and SAR filings. This file
// is the intake every product raises alerts through. Pure: no database, no HTTP.
package cases

import "github.com/svcplatform/svc/internal/statemachine"

// AlertSource names the product an alert comes from.
type AlertSource string

// Alert sources.
const (
	SourceScreening AlertSource = "screening"
	SourceFraud     AlertSource = "fraud"
)

// AlertStatus is where an alert stands: open when raised, assigned once a case gathers it,
// closed when its case closes (or the decision that raised it is reviewed).
type AlertStatus string

// Alert statuses.
const (
	AlertOpen     AlertStatus = "open"
	AlertAssigned AlertStatus = "assigned"
	AlertClosed   AlertStatus = "closed"
)

// Alerts is the alert's transition table.
var Alerts = statemachine.New("alert", AlertOpen, []AlertStatus{AlertOpen, AlertAssigned, AlertClosed},
	statemachine.Move[AlertStatus]{From: AlertOpen, To: AlertAssigned, By: "gathered into a case"},
	statemachine.Move[AlertStatus]{From: AlertOpen, To: AlertClosed, By: "source resolved"},
	statemachine.Move[AlertStatus]{From: AlertAssigned, To: AlertClosed, By: "case closed / source resolved"},
	statemachine.Move[AlertStatus]{From: AlertClosed, To: AlertAssigned, By: "case reopened"},
)

// DedupeKey names what raised an alert, so raising it again (an activity retry, a replayed
// monitoring batch) finds the first one instead of opening a second: the source, the record
// that raised it (a screening or a decision) and, for screening, the list entity it hit.
func DedupeKey(source AlertSource, ref, subject string) string {
	k := string(source) + ":" + ref
	if subject != "" {
		k += ":" + subject
	}
	return k
}
