package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/ids"
)

// Cases is the repository of the cases product: cases (cas_), their timeline and evidence,
// the gathering of alerts into them, and SAR filings (sar_). Every query is scoped to the
// organisation. A case's state is moved only by its workflow (ApplyCaseChange), which holds
// the four-eyes checks.
type Cases struct{ *handle }

// Case is one case of an organisation.
type Case struct {
	ID         string `gorm:"primaryKey;size:40"`
	OrgID      string `gorm:"size:40;not null;index:ix_cases_org_created,priority:1"`
	Title      string `gorm:"size:300;not null"`
	CustomerID string `gorm:"size:128;index"`
	Priority   string `gorm:"size:16;not null"`
	Status     string `gorm:"size:16;not null;index"`
	AssigneeID string `gorm:"size:40"`
	DueAt      *time.Time
	// The pending closure: who proposed which outcome and why (set in pending_close).
	ProposedBy        string `gorm:"size:40"`
	ProposedOutcome   string `gorm:"size:32"`
	ProposedRationale string `gorm:"type:text"`
	// The closure: set when the case closed (kept after a reopen, as the last closure).
	Outcome   string `gorm:"size:32"`
	Rationale string `gorm:"type:text"`
	ClosedBy  string `gorm:"size:40"`
	ClosedAt  *time.Time
	CreatedBy string `gorm:"size:40"`
	// Summary is a machine-written summary (the AI automation product's), SummaryBy names its writer.
	Summary   string `gorm:"type:text"`
	SummaryBy string `gorm:"size:100"`
	// Started is set once the case's workflow runs; the gathering Schedule starts the others.
	Started   bool      `gorm:"not null;default:false"`
	CreatedAt time.Time `gorm:"index:ix_cases_org_created,priority:2"`
	UpdatedAt time.Time
}

// CaseEntry is one line of a case's timeline: a comment, a move, an assignment, an alert
// gathered, evidence linked. Its id derives from the case and what wrote it, so a retried
// write adds it once.
type CaseEntry struct {
	ID        string         `gorm:"primaryKey;size:40"`
	OrgID     string         `gorm:"size:40;not null"`
	CaseID    string         `gorm:"size:40;not null;index:ix_case_entries_case,priority:1"`
	Kind      string         `gorm:"size:32;not null"`
	ActorID   string         `gorm:"size:40"`
	APIKeyID  string         `gorm:"size:40"`
	Body      string         `gorm:"type:text"`
	Data      map[string]any `gorm:"serializer:json;type:text"`
	CreatedAt time.Time      `gorm:"index:ix_case_entries_case,priority:2"`
}

// CaseEvidence links a record of another product (a screening, a decision, a document, an
// execution, an analysis, an identity attempt) to a case.
type CaseEvidence struct {
	ID        string `gorm:"primaryKey;size:40"`
	OrgID     string `gorm:"size:40;not null"`
	CaseID    string `gorm:"size:40;not null;uniqueIndex:ux_case_evidence_ref,priority:1"`
	Kind      string `gorm:"size:32;not null"`
	RefID     string `gorm:"size:100;not null;uniqueIndex:ux_case_evidence_ref,priority:2"`
	Note      string `gorm:"size:500"`
	AddedBy   string `gorm:"size:40"`
	CreatedAt time.Time
}

// TableName keeps the table's name singular-free and explicit.
func (CaseEvidence) TableName() string { return "case_evidence" }

// Timeline entry kinds.
const (
	EntryCreated  = "created"
	EntryComment  = "comment"
	EntryAlert    = "alert_gathered"
	EntryEvidence = "evidence_linked"
	EntryUpdated  = "updated"
	EntryOverdue  = "overdue"
	EntrySummary  = "summary"
)

// entryID is the id of the timeline entry key wrote on a case.
func entryID(caseID, key string) string {
	return ids.Within(ids.Case, caseID, "entry", key)
}

// addEntry writes a timeline entry once (its id derives from the case and key).
func addEntry(tx *gorm.DB, e *CaseEntry, key string) error {
	if e.CreatedAt.IsZero() {
		e.CreatedAt = time.Now().UTC()
	}
	e.ID = entryID(e.CaseID, key)
	return tx.Clauses(clause.OnConflict{DoNothing: true}).Create(e).Error
}

// NewCase is a case opened by hand (POST /api/cases) or by the gathering of an alert.
type NewCase struct {
	ID, OrgID, Title, CustomerID, Priority, CreatedBy string
	DueAt                                             time.Time
	AlertIDs                                          []string
}

// ErrAlertTaken is CreateCase's error when an alert named is closed or held by another case.
var ErrAlertTaken = errors.New("alert already in a case")

// CreateCase stores an open case with its alerts (each must be the organisation's and not yet
// in a case: ErrNotFound, ErrAlertTaken) in one transaction, with its first timeline entries.
func (s *Cases) CreateCase(ctx context.Context, in NewCase) (*Case, error) {
	var c *Case
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		var err error
		c, err = createCase(tx, in)
		return err
	})
	return c, err
}

func createCase(tx *gorm.DB, in NewCase) (*Case, error) {
	now := time.Now().UTC()
	due := in.DueAt.UTC()
	c := &Case{ID: in.ID, OrgID: in.OrgID, Title: in.Title, CustomerID: in.CustomerID, Priority: in.Priority,
		Status: string(cases.Lifecycle.Initial()), DueAt: &due, CreatedBy: in.CreatedBy, CreatedAt: now, UpdatedAt: now}
	if err := tx.Create(c).Error; err != nil {
		return nil, err
	}
	if err := addEntry(tx, &CaseEntry{OrgID: in.OrgID, CaseID: c.ID, Kind: EntryCreated, ActorID: in.CreatedBy, Body: in.Title, CreatedAt: now}, "created"); err != nil {
		return nil, err
	}
	for _, id := range in.AlertIDs {
		if err := gatherAlert(tx, c, id, now); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// gatherAlert moves an open alert of c's organisation into c, with a timeline entry.
func gatherAlert(tx *gorm.DB, c *Case, alertID string, now time.Time) error {
	res := tx.Model(&Alert{}).Where("org_id = ? AND id = ? AND status IN ? AND (case_id IS NULL OR case_id = '')",
		c.OrgID, alertID, cases.Alerts.SourceNames(cases.AlertAssigned)).
		Updates(map[string]any{"status": string(cases.AlertAssigned), "case_id": c.ID, "updated_at": now})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		if _, err := takeInOrg[Alert](tx, c.OrgID, alertID); err != nil {
			return err
		}
		return ErrAlertTaken
	}
	return addEntry(tx, &CaseEntry{OrgID: c.OrgID, CaseID: c.ID, Kind: EntryAlert, Body: alertID, CreatedAt: now}, "alert:"+alertID)
}

// GetCase loads a case of the organisation.
func (s *Cases) GetCase(ctx context.Context, orgID, id string) (*Case, error) {
	return takeInOrg[Case](s.DB.WithContext(ctx), orgID, id)
}

// CaseQuery filters the case list.
type CaseQuery struct {
	Filter
	AssigneeID string
}

// ListCases pages through the organisation's cases, newest first.
func (s *Cases) ListCases(ctx context.Context, orgID string, page Offset, q CaseQuery) ([]Case, int64, error) {
	scopes := []Scope{ForOrg(orgID), q.Scope(FilterColumns{Text: []string{"title"}, Status: "status", CustomerID: "customer_id"})}
	if q.AssigneeID != "" {
		scopes = append(scopes, Where("assignee_id = ?", q.AssigneeID))
	}
	return ListOffset[Case](ctx, s.DB, page, "created_at DESC, id DESC", scopes...)
}

// CaseDetail is a case with everything linked to it: what the API shows and what a
// summariser reads.
type CaseDetail struct {
	Case     Case
	Alerts   []Alert
	Evidence []CaseEvidence
	Timeline []CaseEntry
}

// CaseDossier loads a case of the organisation with its alerts, evidence and timeline (oldest
// first). The AI automation product reads a case through it.
func (s *Cases) CaseDossier(ctx context.Context, orgID, id string) (*CaseDetail, error) {
	c, err := s.GetCase(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	d := &CaseDetail{Case: *c}
	db := s.DB.WithContext(ctx)
	if err := db.Where("org_id = ? AND case_id = ?", orgID, id).Order("created_at, id").Find(&d.Alerts).Error; err != nil {
		return nil, err
	}
	if err := db.Where("org_id = ? AND case_id = ?", orgID, id).Order("created_at, id").Find(&d.Evidence).Error; err != nil {
		return nil, err
	}
	if err := db.Where("org_id = ? AND case_id = ?", orgID, id).Order("created_at, id").Find(&d.Timeline).Error; err != nil {
		return nil, err
	}
	return d, nil
}

// SetCaseSummary stores a machine-written summary on a case (by names the writer, e.g. an
// automation run aut_…) with a timeline entry; it does not move the case.
func (s *Cases) SetCaseSummary(ctx context.Context, orgID, id, summary, by string) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		now := time.Now().UTC()
		res := tx.Model(&Case{}).Where("org_id = ? AND id = ?", orgID, id).
			Updates(map[string]any{"summary": summary, "summary_by": by, "updated_at": now})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		return addEntry(tx, &CaseEntry{OrgID: orgID, CaseID: id, Kind: EntrySummary, ActorID: by, Body: summary, CreatedAt: now}, "summary:"+by)
	})
}

// AddComment adds a person's comment to a case's timeline.
func (s *Cases) AddComment(ctx context.Context, orgID, caseID, actorID, keyID, body string) (*CaseEntry, error) {
	e := &CaseEntry{OrgID: orgID, CaseID: caseID, Kind: EntryComment, ActorID: actorID, APIKeyID: keyID, Body: body, CreatedAt: time.Now().UTC()}
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		if _, err := takeInOrg[Case](tx, orgID, caseID); err != nil {
			return err
		}
		return addEntry(tx, e, "comment:"+ids.New(ids.Case))
	})
	return e, err
}

// AddEvidence links records to a case (a link already there is kept) with timeline entries.
func (s *Cases) AddEvidence(ctx context.Context, orgID, caseID, actorID string, links []CaseEvidence) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		now := time.Now().UTC()
		for _, l := range links {
			l.OrgID, l.CaseID, l.AddedBy, l.CreatedAt = orgID, caseID, actorID, now
			l.ID = ids.DeriveFrom(ids.Case, now, caseID, "evidence", l.RefID)
			res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&l)
			if res.Error != nil {
				return res.Error
			}
			if res.RowsAffected == 1 {
				if err := addEntry(tx, &CaseEntry{OrgID: orgID, CaseID: caseID, Kind: EntryEvidence, ActorID: actorID, Body: l.RefID,
					Data: map[string]any{"kind": l.Kind, "note": l.Note}, CreatedAt: now}, "evidence:"+l.RefID); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// MarkCaseStarted records that the case's workflow runs.
func (s *Cases) MarkCaseStarted(ctx context.Context, orgID, id string) error {
	return s.DB.WithContext(ctx).Model(&Case{}).Where("org_id = ? AND id = ?", orgID, id).Update("started", true).Error
}

// UnstartedCases lists up to limit cases (any organisation) whose workflow has not been
// started: the gathering Schedule starts them.
func (s *Cases) UnstartedCases(ctx context.Context, limit int) ([]Case, error) {
	var out []Case
	err := s.DB.WithContext(ctx).Where("started = ?", false).Order("created_at, id").Limit(limit).Find(&out).Error
	return out, err
}

// CaseAlertIDs lists the ids of a case's alerts, oldest first.
func (s *Cases) CaseAlertIDs(ctx context.Context, orgID, caseID string) ([]string, error) {
	var out []string
	err := s.DB.WithContext(ctx).Model(&Alert{}).Where("org_id = ? AND case_id = ?", orgID, caseID).Order("created_at, id").Pluck("id", &out).Error
	return out, err
}

// AlertQuery filters the alert feed.
type AlertQuery struct {
	Filter
	Source, CaseID string
}

// ListAlerts pages through the organisation's alerts, newest first (cursor).
func (s *Cases) ListAlerts(ctx context.Context, orgID string, page CursorPage, q AlertQuery) ([]Alert, *Cursor, error) {
	scopes := []Scope{ForOrg(orgID), q.Scope(FilterColumns{Text: []string{"summary"}, Status: "status", CustomerID: "customer_id"})}
	if q.Source != "" {
		scopes = append(scopes, Where("source = ?", q.Source))
	}
	if q.CaseID != "" {
		scopes = append(scopes, Where("case_id = ?", q.CaseID))
	}
	return ListCursor(ctx, s.DB, page, func(a *Alert) Cursor { return Cursor{Time: a.CreatedAt, ID: a.ID} }, scopes...)
}
