package dashboard

import (
	"net/http"
	"net/url"

	engine "github.com/svcplatform/svc/internal/fraud"
)

// decisions lists the fraud decisions, newest first, a page at a time (the API's cursor),
// filtered by outcome.
func (d *Dashboard) decisions(q *request) {
	a, ok := q.get("/api/decisions", q.listQuery("status", "q", "cursor"))
	if !ok {
		return
	}
	outcomes := make([]string, len(engine.Outcomes))
	for i, o := range engine.Outcomes {
		outcomes[i] = string(o)
	}
	q.render(http.StatusOK, "decisions", view{Title: "Fraud decisions", Section: "decisions", Data: q.newListData(a, Prefix+"/decisions", outcomes, "")})
}

// decision is one decision with its evidence: the matched rules with their reason codes and
// the values they read, the velocity features, and the review form while it waits for one.
func (d *Dashboard) decision(q *request) {
	q.showDecision(http.StatusOK, "", nil)
}

func (q *request) showDecision(status int, refusal string, refused *answer) {
	a, ok := q.get("/api/decisions/"+url.PathEscape(q.r.PathValue("id")), nil)
	if !ok {
		return
	}
	q.render(status, "decision", withRefusal(view{Title: "Decision " + str(a.Data()["id"]), Section: "decisions", Data: a.Data()}, refusal, refused))
}

// reviewDecision approves or declines a decision held for review, through the API (the
// review state machine, the visitor as reviewer, fraud.decision.declined on a decline).
func (d *Dashboard) reviewDecision(q *request) {
	id := url.PathEscape(q.r.PathValue("id"))
	body := map[string]string{"decision": q.form("decision")}
	if note := q.form("note"); note != "" {
		body["note"] = note
	}
	q.acted(q.call(http.MethodPost, "/api/decisions/"+id+"/review", nil, body), Prefix+"/decisions/"+id+"?done=reviewed", q.showDecision)
}

// ruleSetRow is a rule set with the numbers of its versions, newest first.
type ruleSetRow struct {
	RuleSet  map[string]any
	Versions []int
}

type ruleSetsData struct {
	Rows []ruleSetRow
	List listData
}

// ruleSets lists the organisation's rule sets, each with a link to every version.
func (d *Dashboard) ruleSets(q *request) {
	a, ok := q.get("/api/rulesets", q.listQuery("q", "page"))
	if !ok {
		return
	}
	list := q.newListData(a, Prefix+"/rulesets", nil, "")
	rows := make([]ruleSetRow, 0, len(list.Rows))
	for _, r := range list.Rows {
		rs, _ := r.(map[string]any)
		latest, _ := rs["latestVersion"].(float64)
		row := ruleSetRow{RuleSet: rs}
		for v := int(latest); v >= 1; v-- {
			row.Versions = append(row.Versions, v)
		}
		rows = append(rows, row)
	}
	q.render(http.StatusOK, "rulesets", view{Title: "Rule sets", Section: "decisions", Data: ruleSetsData{Rows: rows, List: list}})
}

// ruleSetVersionData is a version with its rule set and the actions its status allows.
type ruleSetVersionData struct {
	RuleSet, Version map[string]any
	// Actions are the names of the life-cycle actions whose move starts at the version's status
	// (engine.Actions): who may take them is the API's four-eyes check.
	Actions []string
}

// ruleSetVersion is one version of a rule set: its rules and thresholds, who drafted,
// submitted, decided and published it, and the buttons of its next steps.
func (d *Dashboard) ruleSetVersion(q *request) {
	q.showRuleSetVersion(http.StatusOK, "", nil)
}

func (q *request) showRuleSetVersion(status int, refusal string, refused *answer) {
	id := url.PathEscape(q.r.PathValue("id"))
	rs, ok := q.get("/api/rulesets/"+id, nil)
	if !ok {
		return
	}
	v, ok := q.get("/api/rulesets/"+id+"/versions/"+url.PathEscape(q.r.PathValue("version")), nil)
	if !ok {
		return
	}
	data := ruleSetVersionData{RuleSet: rs.Data(), Version: v.Data()}
	for _, a := range engine.Actions {
		if string(a.From) == str(data.Version["status"]) {
			data.Actions = append(data.Actions, a.Name)
		}
	}
	q.render(status, "ruleset_version", withRefusal(view{Title: str(data.RuleSet["name"]) + " version " + q.r.PathValue("version"),
		Section: "decisions", Data: data, People: q.people()}, refusal, refused))
}

// transitionVersion submits, approves, rejects or publishes a version through the API, whose
// four-eyes rule refuses the drafter's own approval (shown in plain words).
func (d *Dashboard) transitionVersion(q *request) {
	if _, ok := engine.ActionNamed(q.r.PathValue("action")); !ok {
		q.notFound()
		return
	}
	path := "/api/rulesets/" + url.PathEscape(q.r.PathValue("id")) + "/versions/" + url.PathEscape(q.r.PathValue("version"))
	q.acted(q.call(http.MethodPost, path+"/"+q.r.PathValue("action"), nil, nil),
		Prefix+path[len("/api"):]+"?done=version-"+q.r.PathValue("action"), q.showRuleSetVersion)
}
