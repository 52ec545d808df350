package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/svcplatform/svc/internal/statements"
)

// Statements is the bank statement analysis product's repository: analyses (ana_), each
// the statements read from one or more files of one account and what was computed from
// them. Every query is scoped to the organisation.
type Statements struct{ *handle }

// AnalysisFile is one uploaded file of an analysis.
type AnalysisFile struct {
	Filename string `json:"filename"`
	Kind     string `json:"kind"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256"`
	BlobKey  string `json:"blobKey"`
}

// Analysis is one bank statement analysis.
type Analysis struct {
	ID      string `gorm:"primaryKey;size:40"`
	OrgID   string `gorm:"size:40;not null;index:ix_analyses_org_created,priority:1"`
	Status  string `gorm:"size:32;not null;index"`
	Version int    `gorm:"not null"`
	// FailedStage and ErrorMessage say where and why a failed analysis stopped.
	FailedStage  string         `gorm:"size:32"`
	ErrorMessage string         `gorm:"size:500"`
	ExternalRef  string         `gorm:"size:200"`
	ExternalID   string         `gorm:"size:200;index"`
	UploadedBy   string         `gorm:"size:40"`
	Files        []AnalysisFile `gorm:"serializer:json;type:text;not null"`
	// PasswordSealed is the PDF password, sealed with secrets.key and bound to the analysis
	// id; it is forgotten when the analysis ends.
	PasswordSealed string `gorm:"type:text"`
	RiskScore      int    `gorm:"not null"`
	// Result is the analysis's latest version (nil until it is decided).
	Result      *statements.Result `gorm:"serializer:json;type:text"`
	CreatedAt   time.Time          `gorm:"index:ix_analyses_org_created,priority:2"`
	UpdatedAt   time.Time
	CompletedAt *time.Time
}

// CreateAnalysis stores a new analysis as uploaded, version 0.
func (s *Statements) CreateAnalysis(ctx context.Context, a *Analysis) error {
	a.Status, a.Version = "uploaded", 0
	return s.DB.WithContext(ctx).Create(a).Error
}

// GetAnalysis loads an analysis of the organisation.
func (s *Statements) GetAnalysis(ctx context.Context, orgID, id string) (*Analysis, error) {
	return takeInOrg[Analysis](s.DB.WithContext(ctx), orgID, id)
}

// ListAnalyses returns one page of the organisation's analyses, newest first.
func (s *Statements) ListAnalyses(ctx context.Context, orgID string, page CursorPage, f Filter) ([]Analysis, *Cursor, error) {
	return ListCursor(ctx, s.DB, page, func(a *Analysis) Cursor { return Cursor{Time: a.CreatedAt, ID: a.ID} },
		ForOrg(orgID), f.Scope(FilterColumns{Status: "status", ExternalID: "external_id"}))
}

// DecideAnalysis stores a decided result as the next version, from any state but failed;
// the password is forgotten. It returns the version written.
func (s *Statements) DecideAnalysis(ctx context.Context, orgID, id string, r *statements.Result, now time.Time) (int, error) {
	a, err := s.GetAnalysis(ctx, orgID, id)
	if err != nil {
		return 0, err
	}
	if a.Status == string(statements.StatusFailed) {
		return 0, &StateError{Status: a.Status}
	}
	body, err := json.Marshal(r)
	if err != nil {
		return 0, err
	}
	res := s.DB.WithContext(ctx).Model(&Analysis{}).Where("org_id = ? AND id = ? AND version = ?", orgID, id, a.Version).
		Updates(map[string]any{"status": string(r.Status), "version": a.Version + 1, "result": string(body),
			"risk_score": r.Signals.Risk, "password_sealed": "", "updated_at": now.UTC(), "completed_at": now.UTC()})
	if res.Error != nil {
		return 0, res.Error
	}
	if res.RowsAffected == 0 {
		return 0, &StateError{Status: a.Status} // a concurrent decision or correction won
	}
	return a.Version + 1, nil
}

// FailAnalysis ends an analysis as failed in a stage, forgetting its password.
func (s *Statements) FailAnalysis(ctx context.Context, orgID, id string, stage statements.Stage, msg string, now time.Time) error {
	return s.DB.WithContext(ctx).Model(&Analysis{}).Where("org_id = ? AND id = ?", orgID, id).
		Updates(map[string]any{"status": string(statements.StatusFailed), "failed_stage": string(stage), "error_message": msg,
			"password_sealed": "", "updated_at": now.UTC(), "completed_at": now.UTC()}).Error
}

// SetAnalysisStatus moves an analysis to a working status (processing, password_required).
func (s *Statements) SetAnalysisStatus(ctx context.Context, orgID, id, status string, now time.Time) error {
	return s.DB.WithContext(ctx).Model(&Analysis{}).Where("org_id = ? AND id = ?", orgID, id).
		Updates(map[string]any{"status": status, "updated_at": now.UTC()}).Error
}
