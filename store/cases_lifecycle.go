package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/ids"
)

// CaseChange is one action the case workflow applied (after its checks): what the store
// records of it. Key is unique within the case (the Update's id), so a retried write is one.
type CaseChange struct {
	OrgID, CaseID, Key string
	Action             cases.Action
	// To is the state after the action (the same as before for assign-in-place and update).
	To                  cases.State
	ActorID, APIKeyID   string
	AssigneeID          string
	Title, Priority     string
	DueAt               *time.Time
	Outcome, Rationale  string
	ProposedBy, Comment string
	At                  time.Time
}

// ApplyCaseChange records an action on a case in one transaction: the case's fields, its
// alerts (closed with the case, assigned again when it reopens) and the timeline entry. It
// writes nothing the second time for the same Key.
func (s *Cases) ApplyCaseChange(ctx context.Context, ch CaseChange) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		id := entryID(ch.CaseID, ch.Key)
		var n int64
		if err := tx.Model(&CaseEntry{}).Where("id = ?", id).Count(&n).Error; err != nil || n > 0 {
			return err
		}
		at := ch.At.UTC()
		set := map[string]any{"status": string(ch.To), "updated_at": at}
		data := map[string]any{"status": string(ch.To)}
		switch ch.Action {
		case cases.ActionAssign:
			set["assignee_id"], data["assigneeId"] = ch.AssigneeID, ch.AssigneeID
		case cases.ActionProposeClose:
			set["proposed_by"], set["proposed_outcome"], set["proposed_rationale"] = ch.ActorID, ch.Outcome, ch.Rationale
			data["outcome"] = ch.Outcome
		case cases.ActionApproveClose:
			set["outcome"], set["rationale"], set["closed_by"], set["closed_at"] = ch.Outcome, ch.Rationale, ch.ActorID, at
			set["proposed_by"], set["proposed_outcome"], set["proposed_rationale"] = "", "", ""
			data["outcome"], data["proposedBy"] = ch.Outcome, ch.ProposedBy
			if err := tx.Model(&Alert{}).Where("org_id = ? AND case_id = ? AND status IN ?", ch.OrgID, ch.CaseID, cases.Alerts.SourceNames(cases.AlertClosed)).
				Updates(map[string]any{"status": string(cases.AlertClosed), "updated_at": at}).Error; err != nil {
				return err
			}
		case cases.ActionRejectClose:
			set["proposed_by"], set["proposed_outcome"], set["proposed_rationale"] = "", "", ""
			data["proposedBy"] = ch.ProposedBy
		case cases.ActionReopen:
			if err := tx.Model(&Alert{}).Where("org_id = ? AND case_id = ? AND status = ?", ch.OrgID, ch.CaseID, string(cases.AlertClosed)).
				Updates(map[string]any{"status": string(cases.AlertAssigned), "updated_at": at}).Error; err != nil {
				return err
			}
		case cases.ActionUpdate:
			if ch.Title != "" {
				set["title"], data["title"] = ch.Title, ch.Title
			}
			if ch.Priority != "" {
				set["priority"], data["priority"] = ch.Priority, ch.Priority
			}
			if ch.DueAt != nil {
				due := ch.DueAt.UTC()
				set["due_at"], data["dueAt"] = due, due.Format(time.RFC3339)
			}
		}
		res := tx.Model(&Case{}).Where("org_id = ? AND id = ?", ch.OrgID, ch.CaseID).Updates(set)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		return addEntry(tx, &CaseEntry{OrgID: ch.OrgID, CaseID: ch.CaseID, Kind: string(ch.Action), ActorID: ch.ActorID,
			APIKeyID: ch.APIKeyID, Body: firstNonEmpty(ch.Rationale, ch.Comment), Data: data, CreatedAt: at}, ch.Key)
	})
}

// RecordOverdue adds the overdue entry of due date dueAt to a case's timeline (once per due date).
func (s *Cases) RecordOverdue(ctx context.Context, orgID, caseID string, dueAt, at time.Time) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		return addEntry(tx, &CaseEntry{OrgID: orgID, CaseID: caseID, Kind: EntryOverdue,
			Data: map[string]any{"dueAt": dueAt.UTC().Format(time.RFC3339)}, CreatedAt: at.UTC()}, "overdue:"+dueAt.UTC().Format(time.RFC3339))
	})
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Gathering is how the gathering Schedule gathers: alerts of a customer join the customer's
// case opened within Window (not closed), else open a case due DueIn later.
type Gathering struct {
	Window, DueIn time.Duration
	// Limit is how many alerts one call takes at most.
	Limit int
}

// GatherAlerts takes the oldest open alerts that no case holds (any organisation) and gathers
// each, in a transaction of its own, into its customer's open case within the window, or into
// a new case whose id derives from the alert (so a retried gathering opens it once). It
// returns how many alerts it gathered and the cases it opened.
func (s *Cases) GatherAlerts(ctx context.Context, g Gathering) (gathered int, opened []string, err error) {
	var pending []Alert
	if err := s.DB.WithContext(ctx).Where("status = ? AND (case_id IS NULL OR case_id = '')", string(cases.AlertOpen)).
		Order("created_at, id").Limit(g.Limit).Find(&pending).Error; err != nil {
		return 0, nil, err
	}
	for _, a := range pending {
		var newCase string
		err := s.Tx(ctx, func(tx *gorm.DB) error {
			now := time.Now().UTC()
			if a.CustomerID != "" {
				var c Case
				err := tx.Where("org_id = ? AND customer_id = ? AND status <> ? AND created_at >= ?", a.OrgID, a.CustomerID,
					string(cases.StateClosed), a.CreatedAt.Add(-g.Window)).Order("created_at DESC, id DESC").Take(&c).Error
				if err == nil {
					return gatherAlert(tx, &c, a.ID, now)
				}
				if !errors.Is(err, gorm.ErrRecordNotFound) {
					return err
				}
			}
			title := a.Summary
			if title == "" {
				title = "Alert from " + a.Source
			}
			c, err := createCase(tx, NewCase{ID: ids.Rebrand(ids.Case, a.ID), OrgID: a.OrgID, Title: title, CustomerID: a.CustomerID,
				Priority: alertPriority(a.Score), DueAt: now.Add(g.DueIn), AlertIDs: []string{a.ID}})
			if err == nil {
				newCase = c.ID
			}
			return err
		})
		switch {
		case errors.Is(err, ErrAlertTaken):
			continue // a person put it in a case meanwhile
		case err != nil:
			return gathered, opened, err
		}
		gathered++
		if newCase != "" {
			opened = append(opened, newCase)
		}
	}
	return gathered, opened, nil
}

// alertPriority is the priority of a case an alert opens: high from a score of 0.9 up
// (screening scores are 0 to 1, fraud scores 0 to 100).
func alertPriority(score float64) string {
	if score > 1 {
		score /= 100
	}
	if score >= 0.9 {
		return "high"
	}
	return cases.DefaultPriority
}
