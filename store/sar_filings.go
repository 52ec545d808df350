package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/cases"
)

// SARFiling is a suspicious activity report (sar_) drafted from a case. FiledByID drafted it;
// SubmittedByID, a second user, submitted it (never the drafter: Submit's conditional write).
type SARFiling struct {
	ID           string   `gorm:"primaryKey;size:40"`
	OrgID        string   `gorm:"size:40;not null;index:ix_sar_filings_org_created,priority:1"`
	CaseID       string   `gorm:"size:40;not null;index"`
	Subjects     []string `gorm:"serializer:json;type:text"`
	ActivityFrom string   `gorm:"size:10;not null"`
	ActivityTo   string   `gorm:"size:10;not null"`
	Amount       float64
	Currency     string `gorm:"size:3;not null"`
	Narrative    string `gorm:"type:text;not null"`
	Status       string `gorm:"size:16;not null;index"`
	FiledByID    string `gorm:"size:40;not null"`
	FiledByKeyID string `gorm:"size:40"`
	// Submission: who submitted (user and key), when, and what the regulator answered.
	SubmittedByID    string `gorm:"size:40"`
	SubmittedByKeyID string `gorm:"size:40"`
	SubmittedAt      *time.Time
	Reference        string `gorm:"size:200"`
	RejectReason     string `gorm:"size:1000"`
	LastError        string `gorm:"size:1000"`
	Attempts         int    `gorm:"not null;default:0"`
	AnsweredAt       *time.Time
	// Document and PDF are the rendered filing as delivered (JSON) and for the record (PDF).
	Document string `gorm:"type:text"`
	PDF      []byte
	// Started is set once the submission workflow runs; the gathering Schedule starts the others.
	Started   bool      `gorm:"not null;default:false"`
	CreatedAt time.Time `gorm:"index:ix_sar_filings_org_created,priority:2"`
	UpdatedAt time.Time
}

// CreateSAR stores a draft filing of a case of the organisation (ErrNotFound otherwise).
func (s *Cases) CreateSAR(ctx context.Context, f *SARFiling) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		if _, err := takeInOrg[Case](tx, f.OrgID, f.CaseID); err != nil {
			return err
		}
		now := time.Now().UTC()
		f.Status, f.CreatedAt, f.UpdatedAt = string(cases.SARFilings.Initial()), now, now
		return tx.Create(f).Error
	})
}

// GetSAR loads a filing of the organisation.
func (s *Cases) GetSAR(ctx context.Context, orgID, id string) (*SARFiling, error) {
	return takeInOrg[SARFiling](s.DB.WithContext(ctx), orgID, id)
}

// ListSARs pages through the organisation's filings, newest first; caseID filters when set.
func (s *Cases) ListSARs(ctx context.Context, orgID string, page Offset, f Filter, caseID string) ([]SARFiling, int64, error) {
	scopes := []Scope{ForOrg(orgID), f.Scope(FilterColumns{Text: []string{"narrative"}, Status: "status"})}
	if caseID != "" {
		scopes = append(scopes, Where("case_id = ?", caseID))
	}
	return ListOffset[SARFiling](ctx, s.DB, page, "created_at DESC, id DESC", scopes...)
}

// SARChange is a change of a draft's fields; nil leaves a field as it is.
type SARChange struct {
	Subjects                 *[]string
	ActivityFrom, ActivityTo *string
	Amount                   *float64
	Currency, Narrative      *string
}

// UpdateSAR changes a draft filing in one conditional write: a filing no longer in draft is
// refused with a *statemachine-style StateError (409).
func (s *Cases) UpdateSAR(ctx context.Context, orgID, id string, ch SARChange) (*SARFiling, error) {
	set := map[string]any{"updated_at": time.Now().UTC()}
	if ch.Subjects != nil {
		set["subjects"] = jsonText(*ch.Subjects)
	}
	for col, v := range map[string]*string{"activity_from": ch.ActivityFrom, "activity_to": ch.ActivityTo, "currency": ch.Currency, "narrative": ch.Narrative} {
		if v != nil {
			set[col] = *v
		}
	}
	if ch.Amount != nil {
		set["amount"] = *ch.Amount
	}
	res := s.DB.WithContext(ctx).Model(&SARFiling{}).Where("org_id = ? AND id = ? AND status = ?", orgID, id, string(cases.SARDraft)).Updates(set)
	if res.Error != nil {
		return nil, res.Error
	}
	f, err := s.GetSAR(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	if res.RowsAffected == 0 {
		return f, &SARStateError{From: f.Status, To: string(cases.SARDraft)}
	}
	return f, nil
}

// SARStateError is a filing not in the state an action needs (409).
type SARStateError struct{ From, To string }

func (e *SARStateError) Error() string {
	return "state conflict: cannot transition " + e.From + " → " + e.To
}

// ErrSARFourEyes is Submit's error when the submitter drafted the filing.
var ErrSARFourEyes = errors.New("four-eyes violation")

// SARIncompleteError is Submit's error for a draft that still lacks what a filing needs
// (cases.SARGaps), such as a machine draft no person has completed.
type SARIncompleteError struct{ Gaps map[string]string }

func (e *SARIncompleteError) Error() string { return "sar filing incomplete" }

// SubmitSAR moves a draft filing to submitted by userID (with keyID) in one conditional
// write that also holds the four-eyes rule and the filing's completeness, so no path submits
// a filing its drafter submits or one with no amount: ErrSARFourEyes for the drafter,
// *SARStateError when it is not a draft, *SARIncompleteError when it lacks a field.
func (s *Cases) SubmitSAR(ctx context.Context, orgID, id, userID, keyID string) (*SARFiling, error) {
	now := time.Now().UTC()
	res := s.DB.WithContext(ctx).Model(&SARFiling{}).
		Where("org_id = ? AND id = ? AND status IN ? AND filed_by_id <> ?", orgID, id, cases.SARFilings.SourceNames(cases.SARSubmitted), userID).
		Where("amount > 0 AND currency NOT IN ? AND TRIM(narrative) <> ''", []string{"", cases.NoCurrency}).
		Updates(map[string]any{"status": string(cases.SARSubmitted), "submitted_by_id": userID, "submitted_by_key_id": keyID,
			"submitted_at": now, "updated_at": now})
	if res.Error != nil {
		return nil, res.Error
	}
	f, err := s.GetSAR(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	switch {
	case res.RowsAffected == 1:
		return f, nil
	case f.Status != string(cases.SARDraft):
		return f, &SARStateError{From: f.Status, To: string(cases.SARSubmitted)}
	case f.FiledByID == userID:
		return f, ErrSARFourEyes
	}
	if gaps := cases.SARGaps(f.Amount, f.Currency, f.Narrative); len(gaps) > 0 {
		return f, &SARIncompleteError{Gaps: gaps}
	}
	return f, fmt.Errorf("store: submit %s: refused, and the filing shows no reason", id)
}

// SARRendered records a submitted filing's rendering.
func (s *Cases) SARRendered(ctx context.Context, orgID, id, document string, pdf []byte) error {
	return s.DB.WithContext(ctx).Model(&SARFiling{}).Where("org_id = ? AND id = ?", orgID, id).
		Updates(map[string]any{"document": document, "pdf": pdf, "started": true, "updated_at": time.Now().UTC()}).Error
}

// SARDeliveryFailed records a failed try of a delivery (the filing stays submitted).
func (s *Cases) SARDeliveryFailed(ctx context.Context, orgID, id string, attempt int, msg string) error {
	if len(msg) > 1000 {
		msg = msg[:1000]
	}
	return s.DB.WithContext(ctx).Model(&SARFiling{}).Where("org_id = ? AND id = ? AND status = ?", orgID, id, string(cases.SARSubmitted)).
		Updates(map[string]any{"last_error": msg, "attempts": attempt, "updated_at": time.Now().UTC()}).Error
}

// SARAnswered records the regulator's answer: acknowledged (with its reference) or rejected
// (with its reason). A second call for the same answer changes nothing.
func (s *Cases) SARAnswered(ctx context.Context, orgID, id string, to cases.SARStatus, reference, reason string, attempts int, at time.Time) error {
	if len(reason) > 1000 {
		reason = reason[:1000]
	}
	return s.DB.WithContext(ctx).Model(&SARFiling{}).
		Where("org_id = ? AND id = ? AND status IN ?", orgID, id, cases.SARFilings.SourceNames(to)).
		Updates(map[string]any{"status": string(to), "reference": reference, "reject_reason": reason, "attempts": attempts,
			"last_error": "", "answered_at": at.UTC(), "updated_at": at.UTC()}).Error
}

// UnstartedSARs lists up to limit submitted filings (any organisation) whose submission
// workflow has not rendered them yet, oldest first, submitted longer than grace ago.
func (s *Cases) UnstartedSARs(ctx context.Context, limit int, grace time.Duration) ([]SARFiling, error) {
	var out []SARFiling
	err := s.DB.WithContext(ctx).Where("status = ? AND started = ? AND submitted_at < ?", string(cases.SARSubmitted), false, time.Now().UTC().Add(-grace)).
		Order("submitted_at, id").Limit(limit).Find(&out).Error
	return out, err
}
