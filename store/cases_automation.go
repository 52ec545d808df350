package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/ids"
)

// The AI automation product reads a case and writes a machine summary or a SAR draft on it
// through automation.Cases, which the cases repository implements here.
var _ automation.Cases = (*Cases)(nil)

// CaseContext is what a case automation may tell a model about a case: its subject, alerts,
// the screenings, decisions and documents behind them, and the people's comments. It holds
// no credential: alerts and comments are what people and products wrote about the case.
func (s *Cases) CaseContext(ctx context.Context, orgID, caseID string) (automation.CaseContext, error) {
	d, err := s.CaseDossier(ctx, orgID, caseID)
	if errors.Is(err, ErrNotFound) {
		return automation.CaseContext{}, fmt.Errorf("%w: %s", automation.ErrCaseNotFound, caseID)
	}
	if err != nil {
		return automation.CaseContext{}, err
	}
	out := automation.CaseContext{CaseID: d.Case.ID, Status: d.Case.Status, OpenedAt: d.Case.CreatedAt,
		Subject: automation.CaseSubject{CustomerID: d.Case.CustomerID, Name: d.Case.Title}}
	if d.Case.CustomerID != "" {
		if c, err := takeInOrg[Customer](s.DB.WithContext(ctx), orgID, d.Case.CustomerID); err == nil {
			out.Subject = automation.CaseSubject{CustomerID: c.ID, Name: c.FullName, Type: c.Type, Country: c.Country}
		}
	}
	for _, a := range d.Alerts {
		out.Alerts = append(out.Alerts, automation.CaseAlert{ID: a.ID, Source: a.Source, Score: a.Score, Description: a.Summary, CreatedAt: a.CreatedAt})
		switch cases.AlertSource(a.Source) {
		case cases.SourceScreening:
			out.Screenings = append(out.Screenings, automation.CaseScreening{ID: a.SourceRef, Status: "potential_match", Matches: []string{a.Summary}})
		case cases.SourceFraud:
			outcome, _ := a.Details["outcome"].(string)
			out.Decisions = append(out.Decisions, automation.CaseDecision{ID: a.SourceRef, Outcome: outcome, Reasons: a.ReasonCodes})
		}
	}
	for _, e := range d.Evidence {
		if e.Kind != "document" {
			continue
		}
		if doc, err := takeInOrg[Document](s.DB.WithContext(ctx), orgID, e.RefID); err == nil {
			out.Documents = append(out.Documents, automation.CaseDocument{ID: doc.ID, Type: doc.Type, Status: doc.Status})
		}
	}
	for _, e := range d.Timeline {
		if e.Kind == EntryComment {
			out.Notes = append(out.Notes, e.Body)
		}
	}
	return out, nil
}

// SaveMachineSummary stores a case summary written by automation run s.AutomationID; the
// timeline entry is keyed by the run, so a retried activity adds it once.
func (s *Cases) SaveMachineSummary(ctx context.Context, orgID, caseID string, m automation.MachineSummary) error {
	text := m.Summary
	if m.RecommendedAction != "" {
		text += "\n\nRecommended action: " + m.RecommendedAction
	}
	err := s.SetCaseSummary(ctx, orgID, caseID, text, m.AutomationID)
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%w: %s", automation.ErrCaseNotFound, caseID)
	}
	return err
}

// SaveSARDraft stores a draft SAR filing of the case whose drafter is the person who asked
// for it. Its id derives from the run, so a retried activity finds the draft it made. The
// activity period spans the case's alerts; the amount and currency (XXX, ISO 4217's "no
// currency") are for the person who edits the draft to fill in before anyone submits it.
func (s *Cases) SaveSARDraft(ctx context.Context, orgID, caseID string, m automation.MachineSARDraft) error {
	id := ids.Rebrand(ids.SARFiling, m.AutomationID)
	if _, err := s.GetSAR(ctx, orgID, id); err == nil {
		return nil
	} else if !errors.Is(err, ErrNotFound) {
		return err
	}
	d, err := s.CaseDossier(ctx, orgID, caseID)
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%w: %s", automation.ErrCaseNotFound, caseID)
	}
	if err != nil {
		return err
	}
	from, to := d.Case.CreatedAt, d.Case.CreatedAt
	for _, a := range d.Alerts {
		from, to = minTime(from, a.CreatedAt), maxTime(to, a.CreatedAt)
	}
	var subjects []string
	if d.Case.CustomerID != "" {
		subjects = []string{d.Case.CustomerID}
	}
	err = s.CreateSAR(ctx, &SARFiling{ID: id, OrgID: orgID, CaseID: caseID, Subjects: subjects,
		ActivityFrom: from.UTC().Format(time.DateOnly), ActivityTo: to.UTC().Format(time.DateOnly),
		Currency: cases.NoCurrency, Narrative: m.Narrative, FiledByID: m.DraftedBy})
	if err != nil {
		if _, again := s.GetSAR(ctx, orgID, id); again == nil {
			return nil // a concurrent retry stored it first
		}
	}
	return err
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
