package store

import (
	"encoding/json"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/fraud"
)

// The fraud product's events are written in the transaction of what they announce
// (PublishEventIn): a decision answered on the fast path, a reviewer's decline and a
// published version are never committed without their event.

// decisionEventName is the event a decision's outcome announces: fraud.decision.review when a
// person must look, fraud.decision.declined for a decline, none otherwise.
func decisionEventName(o fraud.Outcome) string {
	switch {
	case o.RaisesAlert():
		return events.FraudDecisionReview
	case o == fraud.OutcomeDecline:
		return events.FraudDecisionDeclined
	}
	return ""
}

// decisionEvent is event name of decision d under key (the decision's id, or its review's),
// at at.
func decisionEvent(name, key string, d *FraudDecision, reasonCodes []string, at time.Time) (events.Envelope, error) {
	at = at.UTC().Truncate(time.Millisecond)
	if reasonCodes == nil {
		reasonCodes = []string{}
	}
	return events.NewEnvelope(events.DeriveID(at, key, name), name, d.OrgID, at, map[string]any{
		"decisionId": d.ID, "outcome": d.Outcome, "score": d.Score, "reasonCodes": reasonCodes,
		"customerId": d.CustomerID, "transactionId": events.OrNull(d.TransactionID), "externalId": events.OrNull(d.ExternalID)})
}

// announceReviewDecline writes fraud.decision.declined for a decision a reviewer declined: a
// person's decline is heard as the rules' own are.
func announceReviewDecline(tx *gorm.DB, d *FraudDecision, at time.Time) (*Published, error) {
	var res fraud.Result
	if err := json.Unmarshal([]byte(d.Result), &res); err != nil {
		return nil, err
	}
	env, err := decisionEvent(events.FraudDecisionDeclined, d.ID+"/review", d, res.ReasonCodes, at)
	if err != nil {
		return nil, err
	}
	return PublishEventIn(tx, env)
}

// announcePublished writes fraud.ruleset.published for version v of rule set rs.
func announcePublished(tx *gorm.DB, rs *FraudRuleSet, v *FraudRuleSetVersion, by string, at time.Time) (*Published, error) {
	at = at.UTC().Truncate(time.Millisecond)
	key := rs.ID + "@" + strconv.Itoa(v.Version)
	env, err := events.NewEnvelope(events.DeriveID(at, key, events.FraudRuleSetPublished), events.FraudRuleSetPublished, rs.OrgID, at,
		map[string]any{"ruleSetId": rs.ID, "version": v.Version, "appliesTo": rs.AppliesTo, "publishedBy": by})
	if err != nil {
		return nil, err
	}
	return PublishEventIn(tx, env)
}
