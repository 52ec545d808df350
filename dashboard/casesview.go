package dashboard

import (
	"net/url"
	"time"
)

// The cases product's additions to the shared page machinery: its notices and its template
// functions join the dashboard's here, at start, so the shared tables stay as they are.
func init() {
	for k, v := range caseNotices {
		notices[k] = v
	}
	for k, v := range caseFuncs {
		funcs[k] = v
	}
}

// caseNotices are the plain-words results of the case and SAR filing actions (?done=…).
var caseNotices = map[string]string{
	"case-opened":   "The case was opened.",
	"case-changed":  "The case was saved.",
	"comment":       "Your comment was added to the timeline.",
	"assign":        "The case was assigned.",
	"escalate":      "The case was escalated.",
	"propose-close": "The closure was proposed. Another person (a reviewer or an admin) must approve it.",
	"approve-close": "The closure was approved: the case is closed.",
	"reject-close":  "The closure was rejected: the case is back under investigation.",
	"reopen":        "The case was reopened.",
	"sar-drafted":   "The SAR filing was drafted. Another person must submit it.",
	"sar-saved":     "The draft was saved.",
	"sar-submitted": "The SAR filing was submitted; it is being delivered to the regulator.",
}

// entryLabels name a case's timeline entries for a person.
var entryLabels = map[string]string{
	"created": "Opened", "comment": "Comment", "alert_gathered": "Alert added", "evidence_linked": "Evidence linked",
	"updated": "Details changed", "update": "Details changed", "overdue": "Overdue", "summary": "Summary written",
	"assign": "Assigned", "escalate": "Escalated", "propose-close": "Closure proposed", "approve-close": "Closure approved",
	"reject-close": "Closure rejected", "reopen": "Reopened",
}

// outcomeLabels name a closed case's outcomes.
var outcomeLabels = map[string]string{
	"false_positive": "False positive", "valuable_alert": "Valuable alert", "confirmed_risk": "Confirmed risk",
}

var caseFuncs = map[string]any{
	"entryLabel":   func(kind any) string { return labelOf(entryLabels, str(kind)) },
	"outcomeLabel": func(o any) string { return labelOf(outcomeLabels, str(o)) },
	// localTime shows an RFC 3339 time as a datetime-local value, in UTC (the forms say so).
	"localTime": func(v any) string {
		t, err := time.Parse(time.RFC3339Nano, str(v))
		if err != nil {
			return ""
		}
		return t.UTC().Format("2006-01-02T15:04")
	},
	// sarForm is what the SAR fields partial needs: the form's values (a refused form's own,
	// else defaults), the API's field errors, and for an edit the values being changed.
	"sarForm": func(values map[string]string, errs map[string][]string, was map[string]string) sarForm {
		return sarForm{Values: values, Errors: errs, Was: was}
	},
}

func labelOf(labels map[string]string, k string) string {
	if l := labels[k]; l != "" {
		return l
	}
	return k
}

// sarForm fills the SAR fields partial.
type sarForm struct {
	Values map[string]string
	Errors map[string][]string
	// Was are the draft's stored values (an edit sends only the fields that differ); nil when drafting.
	Was map[string]string
}

// formValues are a posted form's values by name (first value each).
func formValues(f url.Values) map[string]string {
	out := map[string]string{}
	for k, v := range f {
		if len(v) > 0 {
			out[k] = v[0]
		}
	}
	return out
}
