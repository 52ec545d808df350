package store

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svcplatform/svc/internal/statements"
)

// Statements is the bank statement analysis product's repository: analyses (ana_), each
// the statements read from one or more files of one account and what was computed from
// them, their versions (the pipeline's, then each correction's), and the organisation's
// statement templates and category rules. Every query is scoped to the organisation.
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

// AnalysisVersion is one decided version of an analysis: 1 is the pipeline's, each
// correction adds the next with its actor and corrections.
type AnalysisVersion struct {
	AnalysisID  string                  `gorm:"primaryKey;size:40"`
	Version     int                     `gorm:"primaryKey;autoIncrement:false"`
	OrgID       string                  `gorm:"size:40;not null;index"`
	Status      string                  `gorm:"size:32;not null"`
	Result      *statements.Result      `gorm:"serializer:json;type:text;not null"`
	Corrections []statements.Correction `gorm:"serializer:json;type:text"`
	ActorUserID string                  `gorm:"size:40"`
	CreatedAt   time.Time
}

// StatementTemplate is an organisation's bank statement template (tpl_), detected beside
// the built-in ones.
type StatementTemplate struct {
	ID        string              `gorm:"primaryKey;size:40"`
	OrgID     string              `gorm:"size:40;not null;index"`
	Bank      string              `gorm:"size:200;not null"`
	Template  statements.Template `gorm:"serializer:json;type:text;not null"`
	CreatedBy string              `gorm:"size:40"`
	CreatedAt time.Time
}

// StatementCategoryRules are an organisation's category rules, checked before the defaults.
type StatementCategoryRules struct {
	OrgID     string                    `gorm:"primaryKey;size:40"`
	Rules     []statements.CategoryRule `gorm:"serializer:json;type:text;not null"`
	UpdatedBy string                    `gorm:"size:40"`
	UpdatedAt time.Time
}

// AnalysisPasswordContext binds a sealed analysis password to its analysis.
func AnalysisPasswordContext(analysisID string) string { return "analysis-password:" + analysisID }

// CreateAnalysis stores a new analysis as uploaded, version 0. A row with a's id already
// there is left as it is: a retried upload (api.NewID) finds what its first try stored.
func (s *Statements) CreateAnalysis(ctx context.Context, a *Analysis) error {
	a.Status, a.Version = string(statements.StatusUploaded), 0
	return s.DB.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(a).Error
}

// DeleteUploaded forgets an analysis whose pipeline could not be started.
func (s *Statements) DeleteUploaded(ctx context.Context, orgID, id string) error {
	return s.DB.WithContext(ctx).Where("org_id = ? AND id = ? AND status = ?", orgID, id, statements.StatusUploaded).
		Delete(&Analysis{}).Error
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

// AnalysisUpdate is a pipeline write to an analysis: the non-zero fields.
type AnalysisUpdate struct {
	Status         statements.Status
	FailedStage    string
	ErrorMessage   string
	ForgetPassword bool
	CompletedAt    *time.Time
}

// UpdateAnalysis applies a pipeline write, only from the states statements.Lifecycle lets
// the pipeline leave for u.Status (any pipeline state when u sets none); a row that has
// moved on is left as it is, so a retried write changes nothing.
func (s *Statements) UpdateAnalysis(ctx context.Context, orgID, id string, u AnalysisUpdate, now time.Time) error {
	cols := map[string]any{"updated_at": now.UTC()}
	from := analysisPipelineStatuses
	if u.Status != "" {
		cols["status"] = string(u.Status)
		from = analysisPipelineSources(u.Status)
	}
	if u.FailedStage != "" {
		cols["failed_stage"] = u.FailedStage
	}
	if u.ErrorMessage != "" {
		cols["error_message"] = u.ErrorMessage
	}
	if u.ForgetPassword {
		cols["password_sealed"] = ""
	}
	if u.CompletedAt != nil {
		cols["completed_at"] = u.CompletedAt.UTC()
	}
	return s.DB.WithContext(ctx).Model(&Analysis{}).Where("org_id = ? AND id = ? AND status IN ?", orgID, id, from).Updates(cols).Error
}

// analysisPipelineStatuses are the states the pipeline moves an analysis out of.
var analysisPipelineStatuses = []string{string(statements.StatusUploaded), string(statements.StatusProcessing), string(statements.StatusPasswordRequired)}

// analysisPipelineSources lists the pipeline states from which the lifecycle moves an
// analysis to to (corrections are an analyst's moves, not the pipeline's).
func analysisPipelineSources(to statements.Status) []string {
	var out []string
	for _, st := range statements.Lifecycle.Sources(to) {
		if slices.Contains(analysisPipelineStatuses, string(st)) {
			out = append(out, string(st))
		}
	}
	return out
}

// ClaimPasswordRetry moves an analysis waiting for its password to processing and keeps the
// sealed password for the pipeline, in one conditional write: of two concurrent attempts
// exactly one goes through, the other gets a StateError with the current status.
func (s *Statements) ClaimPasswordRetry(ctx context.Context, orgID, id, sealed string, now time.Time) error {
	res := s.DB.WithContext(ctx).Model(&Analysis{}).
		Where("org_id = ? AND id = ? AND status = ?", orgID, id, statements.StatusPasswordRequired).
		Updates(map[string]any{"status": string(statements.StatusProcessing), "password_sealed": sealed, "updated_at": now.UTC()})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 1 {
		return nil
	}
	a, err := s.GetAnalysis(ctx, orgID, id)
	if err != nil {
		return err
	}
	return &StateError{Status: a.Status}
}

// ReleasePasswordRetry undoes ClaimPasswordRetry when the pipeline did not take the
// password: the analysis waits again, without it, unless the pipeline has moved on.
func (s *Statements) ReleasePasswordRetry(ctx context.Context, orgID, id, sealed string, now time.Time) error {
	return s.DB.WithContext(ctx).Model(&Analysis{}).
		Where("org_id = ? AND id = ? AND status = ? AND password_sealed = ?", orgID, id, statements.StatusProcessing, sealed).
		Updates(map[string]any{"status": string(statements.StatusPasswordRequired), "password_sealed": "", "updated_at": now.UTC()}).Error
}

// DecideAnalysis stores the pipeline's decided result as version 1, moving the analysis
// from processing to the result's status and forgetting its password. Running it again
// changes nothing; an analysis in another state is a StateError.
func (s *Statements) DecideAnalysis(ctx context.Context, orgID, id string, r *statements.Result, now time.Time) (int, error) {
	return 1, s.Tx(ctx, func(tx *gorm.DB) error {
		v := &AnalysisVersion{AnalysisID: id, Version: 1, OrgID: orgID, Status: string(r.Status), Result: r, CreatedAt: now.UTC()}
		return s.writeVersion(tx, v, analysisPipelineSources(r.Status), map[string]any{"password_sealed": "", "completed_at": now.UTC()})
	})
}

// CorrectAnalysis stores a correction's result as version prev+1, only while the analysis
// is still at version prev and in a state the lifecycle lets a correction leave (a
// concurrent correction, or an undecided analysis, is a StateError). It returns the version.
func (s *Statements) CorrectAnalysis(ctx context.Context, orgID, id string, prev int, r *statements.Result, cs []statements.Correction, actor string, now time.Time) (int, error) {
	var from []string
	for _, st := range statements.Lifecycle.Sources(r.Status) {
		if st.Correctable() {
			from = append(from, string(st))
		}
	}
	v := &AnalysisVersion{AnalysisID: id, Version: prev + 1, OrgID: orgID, Status: string(r.Status), Result: r,
		Corrections: cs, ActorUserID: actor, CreatedAt: now.UTC()}
	return prev + 1, s.Tx(ctx, func(tx *gorm.DB) error { return s.writeVersion(tx, v, from, nil) })
}

// writeVersion moves the analysis at version v.Version-1 in one of the states from to
// v's status and result, and keeps v. A version already kept with the same status is a
// retry and succeeds.
func (s *Statements) writeVersion(tx *gorm.DB, v *AnalysisVersion, from []string, extra map[string]any) error {
	body, err := json.Marshal(v.Result)
	if err != nil {
		return err
	}
	risk := 0
	if v.Result.Signals != nil {
		risk = v.Result.Signals.Risk
	}
	cols := map[string]any{"status": v.Status, "version": v.Version, "result": string(body), "risk_score": risk, "updated_at": v.CreatedAt}
	for k, val := range extra {
		cols[k] = val
	}
	res := tx.Model(&Analysis{}).Where("org_id = ? AND id = ? AND version = ? AND status IN ?", v.OrgID, v.AnalysisID, v.Version-1, from).Updates(cols)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		a, err := takeInOrg[Analysis](tx, v.OrgID, v.AnalysisID)
		if err != nil {
			return err
		}
		if a.Version == v.Version && a.Status == v.Status && v.Version == 1 {
			return nil // the pipeline's retried write
		}
		return &StateError{Status: a.Status}
	}
	return tx.Create(v).Error
}

// GetVersion loads one version of an analysis of the organisation.
func (s *Statements) GetVersion(ctx context.Context, orgID, id string, version int) (*AnalysisVersion, error) {
	var v AnalysisVersion
	err := s.DB.WithContext(ctx).Where("org_id = ? AND analysis_id = ? AND version = ?", orgID, id, version).Take(&v).Error
	if err != nil {
		return nil, NotFound(err)
	}
	return &v, nil
}

// FailAnalysis ends an analysis as failed in a stage, forgetting its password.
func (s *Statements) FailAnalysis(ctx context.Context, orgID, id string, stage statements.Stage, msg string, now time.Time) error {
	return s.UpdateAnalysis(ctx, orgID, id, AnalysisUpdate{Status: statements.StatusFailed, FailedStage: string(stage),
		ErrorMessage: msg, ForgetPassword: true, CompletedAt: &now}, now)
}

// CreateTemplate stores an organisation's statement template.
func (s *Statements) CreateTemplate(ctx context.Context, t *StatementTemplate) error {
	return s.DB.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(t).Error
}

// GetTemplate loads one of the organisation's statement templates.
func (s *Statements) GetTemplate(ctx context.Context, orgID, id string) (*StatementTemplate, error) {
	return takeInOrg[StatementTemplate](s.DB.WithContext(ctx), orgID, id)
}

// DeleteTemplate removes one of the organisation's statement templates.
func (s *Statements) DeleteTemplate(ctx context.Context, orgID, id string) error {
	res := s.DB.WithContext(ctx).Where("org_id = ? AND id = ?", orgID, id).Delete(&StatementTemplate{})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// ListTemplates returns one page of the organisation's statement templates, newest first.
func (s *Statements) ListTemplates(ctx context.Context, orgID string, page CursorPage) ([]StatementTemplate, *Cursor, error) {
	return ListCursor(ctx, s.DB, page, func(t *StatementTemplate) Cursor { return Cursor{Time: t.CreatedAt, ID: t.ID} }, ForOrg(orgID))
}

// maxOrgTemplates bounds how many templates detection tries for one organisation.
const maxOrgTemplates = 200

// Templates returns the organisation's templates, newest first, followed by the built-in
// ones: the list detection tries.
func (s *Statements) Templates(ctx context.Context, orgID string) ([]statements.Template, error) {
	var rows []StatementTemplate
	if err := s.DB.WithContext(ctx).Where("org_id = ?", orgID).Order("created_at DESC, id DESC").Limit(maxOrgTemplates).Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]statements.Template, 0, len(rows)+len(statements.BuiltinTemplates()))
	for _, r := range rows {
		out = append(out, r.Template)
	}
	return append(out, statements.BuiltinTemplates()...), nil
}

// CategoryRules returns the organisation's category rules (none: an empty list).
func (s *Statements) CategoryRules(ctx context.Context, orgID string) (*StatementCategoryRules, error) {
	var r StatementCategoryRules
	err := s.DB.WithContext(ctx).Where("org_id = ?", orgID).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return &StatementCategoryRules{OrgID: orgID, Rules: []statements.CategoryRule{}}, nil
	}
	return &r, err
}

// SetCategoryRules replaces the organisation's category rules.
func (s *Statements) SetCategoryRules(ctx context.Context, r *StatementCategoryRules) error {
	return s.DB.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "org_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"rules", "updated_by", "updated_at"}),
	}).Create(r).Error
}
