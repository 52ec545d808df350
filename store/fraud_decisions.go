package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/internal/ids"
)

// ErrUnknownDeviceSession is an evaluation naming a device session the organisation does not have.
var ErrUnknownDeviceSession = errors.New("unknown device session")

// errLookupRollback ends a lookup's transaction: it computed everything and keeps nothing.
var errLookupRollback = errors.New("lookup: roll back")

// FraudVersion is a compiled rule set version.
type FraudVersion struct {
	RuleSetID string
	Version   int
	Rules     *fraud.RuleSet
}

// FraudEvaluation asks for one decision.
type FraudEvaluation struct {
	OrgID   string
	Request *fraud.EvaluateRequest
	// Live decides; Shadow, when set, runs beside it. Live nil means no published version:
	// the decision is approve with no rules.
	Live, Shadow *FraudVersion
	// Persist false is POST /api/lookup: the same computation, nothing kept.
	Persist bool
	// Budget bounds the rules of each version (fraud.rule_budget; fraud.DefaultBudget if zero).
	Budget time.Duration
	// Audit, when set, is the request's audit entry, written with the decision (its resource the
	// decision's id).
	Audit *AuditLog
}

// ruleSets returns the compiled live and shadow rules (nil when absent).
func (in FraudEvaluation) ruleSets() (live, shadow *fraud.RuleSet) {
	if in.Live != nil {
		live = in.Live.Rules
	}
	if in.Shadow != nil {
		shadow = in.Shadow.Rules
	}
	return live, shadow
}

// FraudDecided is the decision made, with what rules saw.
type FraudDecided struct {
	Decision   FraudDecision
	Evaluation fraud.Evaluation
	Features   fraud.Features
	// Alert is the alert the decision raised, written with it; nil when its outcome needs no
	// person, and for a lookup.
	Alert *Alert
	// Announced is the event the decision's outcome announces (written with it), its first
	// attempts still to make; nil when the outcome announces none, and for a lookup.
	Announced *Published
	// event is Announced's envelope, until the batch writes it.
	event *events.Envelope
	// firstSeen is when the decision's customer and device were first seen, for fraudCache once
	// the decision is committed.
	firstSeen map[subjectKey]time.Time
}

// Evaluate makes a decision. It reads what does not change under it before the transaction
// (the device session, the customer and device already known, the value lists), then in one
// short write transaction notes new subjects, adds the event to the velocity counters, reads
// the features the versions need, evaluates them and writes the decision and, when its outcome
// needs a person, its alert; concurrent decisions of this process share that transaction
// (groupCommit). Rule errors are recorded on the decision; only database failures fail.
func (s *Fraud) Evaluate(ctx context.Context, in FraudEvaluation) (*FraudDecided, error) {
	pre, err := s.prepare(ctx, in)
	if err != nil {
		return nil, err
	}
	if in.Persist {
		job := &decisionJob{in: in, pre: pre, done: make(chan struct{})}
		s.decisions.run(ctx, job)
		return job.out, job.err
	}
	var out *FraudDecided
	err = s.WriteTx(ctx, func(tx *gorm.DB) error {
		// Entities the lookup meets first get an id only in its transaction, rolled back.
		ids, err := s.fraud.lockEntities(tx, entitiesOf(in.OrgID, pre.obs))
		if err != nil {
			return err
		}
		d, err := evaluateIn(tx, in, pre, ids.keyed(in.OrgID, pre.obs))
		if err != nil {
			return err
		}
		out = d
		return errLookupRollback
	})
	if err != nil && !errors.Is(err, errLookupRollback) {
		return nil, err
	}
	return out, nil
}

// fraudPrepared is what a decision reads before its transaction: rows that never change once
// written (a device session, a subject's first sighting) and the organisation's value lists,
// read like its published version, as of the request.
type fraudPrepared struct {
	session *FraudDeviceSession
	// subjects are the decision's customer and, with a session, its device.
	subjects []subjectKey
	// known maps the subjects already recorded ("customer"/"device" + id) to their first sighting.
	known map[subjectKey]time.Time
	lists map[string]map[string]bool
	// event is the event as rules see it (its IP, when it names none, its device session's), obs
	// what it adds to the velocity counters, features what the versions read of them: derived
	// once, before the transaction, not in the batch's turn.
	event    fraud.Event
	obs      fraud.Observation
	features []fraud.Feature
}

func (s *Fraud) prepare(ctx context.Context, in FraudEvaluation) (*fraudPrepared, error) {
	db := hotReads(s.DB.WithContext(ctx))
	pre := &fraudPrepared{event: in.Request.Event}
	pre.subjects = []subjectKey{{"customer", pre.event.CustomerID}}
	deviceID := ""
	if id := in.Request.DeviceSessionID; id != "" {
		sess, ok := s.fraud.sessions.Get(orgScoped{in.OrgID, id})
		if !ok {
			sess = &FraudDeviceSession{}
			err := db.Where("org_id = ? AND id = ?", in.OrgID, id).Take(sess).Error
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return nil, ErrUnknownDeviceSession
			}
			if err != nil {
				return nil, err
			}
			s.fraud.sessions.Add(orgScoped{in.OrgID, id}, sess)
		}
		pre.session, deviceID = sess, sess.DeviceID
		pre.subjects = append(pre.subjects, subjectKey{"device", sess.DeviceID})
		if pre.event.IP == "" {
			pre.event.IP = sess.IP
		}
	}
	pre.obs = fraud.ObserveEvent(&pre.event, deviceID)
	known, unknown := s.fraud.known(in.OrgID, pre.subjects)
	read, err := subjectsKnown(db, in.OrgID, unknown)
	if err != nil {
		return nil, err
	}
	s.fraud.remember(in.OrgID, read)
	for k, at := range read {
		known[k] = at
	}
	pre.known = known
	live, shadow := in.ruleSets()
	pre.features = fraud.FeaturesOf(live, shadow)
	if pre.lists, err = loadLists(db, in.OrgID, live, shadow); err != nil {
		return nil, err
	}
	return pre, nil
}

// evaluateIn makes a decision in tx, whose caller has locked its entities (lockVelocity) and
// resolved their ids (obs): its subjects and counters, not its own row, alert and event, which
// the caller writes with those of its batch (a lookup keeps none).
func evaluateIn(tx *gorm.DB, in FraudEvaluation, pre *fraudPrepared, obs keyedObservation) (*FraudDecided, error) {
	seen, err := noteDecisionSubjects(tx, in, pre)
	if err != nil {
		return nil, err
	}
	features, err := observeVelocity(tx, obs, pre.features)
	if err != nil {
		return nil, err
	}
	return decide(in, pre, seen, features)
}

// subjectsSeen is when a decision's subjects (fraudPrepared.subjects) were first seen, and
// whether now.
type subjectsSeen struct {
	first map[subjectKey]time.Time
	isNew map[subjectKey]bool
}

// noteDecisionSubjects records the decision's customer and device if they are new.
func noteDecisionSubjects(tx *gorm.DB, in FraudEvaluation, pre *fraudPrepared) (subjectsSeen, error) {
	var s subjectsSeen
	var err error
	s.first, s.isNew, err = noteSubjects(tx, in.OrgID, pre.subjects, pre.event.OccurredAt, pre.known)
	return s, err
}

// decide evaluates the versions over what the decision's transaction read and builds its
// decision row, and, for a decision kept, its alert and event: no database work.
func decide(in FraudEvaluation, pre *fraudPrepared, seen subjectsSeen, features fraud.Features) (*FraudDecided, error) {
	ev := pre.event
	first, subjects := seen.first, pre.subjects
	device := fraud.DeviceView{}
	if sess := pre.session; sess != nil {
		at := first[subjects[1]]
		device = fraud.DeviceView{Known: true, SessionID: sess.ID, ID: sess.DeviceID, FirstSeenAt: at,
			AgeHours: ev.OccurredAt.Sub(at).Hours(), IP: sess.IP, Country: sess.Country, Signals: sess.Signals}
	}
	at := first[subjects[0]]
	customer := fraud.CustomerView{ID: ev.CustomerID, FirstSeenAt: at, AgeDays: ev.OccurredAt.Sub(at).Hours() / 24, IsNew: seen.isNew[subjects[0]]}
	live, shadow := in.ruleSets()
	req := *in.Request
	req.Event = ev
	env := fraud.NewEnv(&req, customer, device, features, pre.lists)

	evaluation := fraud.Evaluation{Live: fraud.Result{Outcome: fraud.OutcomeApprove, Matched: []fraud.MatchedRule{}, ReasonCodes: []string{}}}
	if live != nil {
		evaluation = fraud.EvaluateWithShadow(live, shadow, &env, in.Budget)
	}
	now := time.Now().UTC()
	d := FraudDecision{
		ID: ids.NewAt(ids.Decision, now), OrgID: in.OrgID, Kind: string(ev.Kind), EventType: ev.Type, TransactionID: ev.ID,
		CustomerID: ev.CustomerID, AmountMinor: ev.Amount.Minor, Currency: ev.Amount.Currency, OccurredAt: ev.OccurredAt,
		Outcome: string(evaluation.Live.Outcome), Score: evaluation.Live.Score, ExternalID: in.Request.ExternalID,
		ReviewStatus: string(fraud.InitialReview(evaluation.Live.Outcome)), CreatedAt: now,
	}
	var err error
	if in.Live != nil {
		d.RuleSetID, d.RuleSetVersion = in.Live.RuleSetID, in.Live.Version
	}
	if d.Result, err = fraudJSON(evaluation.Live); err != nil {
		return nil, err
	}
	if evaluation.Shadow != nil {
		d.ShadowVersion = in.Shadow.Version
		if d.Shadow, err = fraudJSON(evaluation.Shadow); err != nil {
			return nil, err
		}
	}
	if d.Snapshot, err = fraudJSON(env.Snapshot()); err != nil {
		return nil, err
	}
	out := &FraudDecided{Decision: d, Evaluation: evaluation, Features: features, firstSeen: first}
	if !in.Persist {
		return out, nil
	}
	if evaluation.Live.Outcome.RaisesAlert() {
		out.Alert = &Alert{OrgID: in.OrgID, Source: string(cases.SourceFraud), SourceRef: d.ID,
			CustomerID: d.CustomerID, Score: float64(d.Score), ReasonCodes: evaluation.Live.ReasonCodes,
			Summary: fmt.Sprintf("%s: score %d", d.Outcome, d.Score), Details: map[string]any{"outcome": d.Outcome}, CreatedAt: now}
	}
	if name := decisionEventName(evaluation.Live.Outcome); name != "" {
		env, err := decisionEvent(name, d.ID, &d, evaluation.Live.ReasonCodes, now)
		if err != nil {
			return nil, fmt.Errorf("event: %w", err)
		}
		out.event = &env
	}
	return out, nil
}

func fraudJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("store: encode: %w", err)
	}
	return string(b), nil
}

// subjectSeen notes a customer or device at t and returns when it was first seen and whether
// this is the first time. touch also moves its last-seen time forward.
func subjectSeen(tx *gorm.DB, orgID, kind, id string, t time.Time, touch bool) (time.Time, bool, error) {
	ms := t.UnixMilli()
	res := tx.Exec(`INSERT INTO fraud_subjects (org_id, kind, subject_id, first_seen_ms, last_seen_ms) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (org_id, kind, subject_id) DO NOTHING`, orgID, kind, id, ms, ms)
	if res.Error != nil {
		return time.Time{}, false, fmt.Errorf("subject: %w", res.Error)
	}
	if res.RowsAffected == 1 {
		return t, true, nil
	}
	if touch {
		if err := tx.Exec(`UPDATE fraud_subjects SET last_seen_ms = ? WHERE org_id = ? AND kind = ? AND subject_id = ? AND last_seen_ms < ?`,
			ms, orgID, kind, id, ms).Error; err != nil {
			return time.Time{}, false, fmt.Errorf("subject: %w", err)
		}
	}
	var sub FraudSubject
	if err := tx.Where("org_id = ? AND kind = ? AND subject_id = ?", orgID, kind, id).Take(&sub).Error; err != nil {
		return time.Time{}, false, fmt.Errorf("subject: %w", err)
	}
	return time.UnixMilli(sub.FirstSeenMs).UTC(), false, nil
}

// loadLists reads the value lists the versions name.
func loadLists(tx *gorm.DB, orgID string, sets ...*fraud.RuleSet) (map[string]map[string]bool, error) {
	var names []string
	for _, rs := range sets {
		if rs != nil {
			names = append(names, rs.Lists()...)
		}
	}
	lists := map[string]map[string]bool{}
	if len(names) == 0 {
		return lists, nil
	}
	for _, n := range names {
		lists[n] = map[string]bool{}
	}
	var rows []FraudValue
	if err := tx.Where("org_id = ? AND list IN ?", orgID, names).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("value lists: %w", err)
	}
	for _, r := range rows {
		lists[r.List][r.Value] = true
	}
	return lists, nil
}
