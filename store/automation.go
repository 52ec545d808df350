package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svcplatform/svc/internal/automation"
)

// AITokenUsage is an organisation's language-model tokens on one UTC day: the ledger of the
// daily token budget (automation.Budget).
type AITokenUsage struct {
	OrgID     string `gorm:"primaryKey;size:40"`
	Day       string `gorm:"primaryKey;size:10"`
	Tokens    int64  `gorm:"not null"`
	UpdatedAt time.Time
}

// AIExchange is the audit record of one model step attempt: of an ai node's step or of an
// automation run. Conversation is what was sent and received after redaction, or only the
// sizes when the policy is "redact" (ai.audit).
type AIExchange struct {
	// ID is "<step or run id>:<activity attempt>".
	ID           string               `gorm:"primaryKey;size:64"`
	OrgID        string               `gorm:"size:40;not null;index"`
	ExecutionID  string               `gorm:"size:40;index"`
	StepID       string               `gorm:"size:40;index"`
	RunID        string               `gorm:"size:40;index"`
	Model        string               `gorm:"size:200"`
	Usage        automation.Usage     `gorm:"serializer:json;type:text"`
	LatencyMs    int64                `gorm:"not null"`
	Attempts     int                  `gorm:"not null"`
	Policy       string               `gorm:"size:16;not null"`
	Conversation []automation.Message `gorm:"serializer:json;type:text"`
	Error        string               `gorm:"type:text"`
	CreatedAt    time.Time
}

// Automation holds the AI automation product's records: token usage, exchanges and runs.
type Automation struct{ *handle }

// Used implements automation.Ledger.
func (s *Automation) Used(ctx context.Context, orgID, day string) (int64, error) {
	var u AITokenUsage
	err := s.DB.WithContext(ctx).Where("org_id = ? AND day = ?", orgID, day).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return 0, nil
	}
	return u.Tokens, err
}

// Add implements automation.Ledger: one upsert that adds to the day's row, so concurrent
// steps of one organisation (on several workers) never lose a charge.
func (s *Automation) Add(ctx context.Context, orgID, day string, tokens int64) (int64, error) {
	var total int64
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		row := AITokenUsage{OrgID: orgID, Day: day, Tokens: tokens, UpdatedAt: time.Now().UTC()}
		if err := tx.Clauses(clause.OnConflict{
			Columns: []clause.Column{{Name: "org_id"}, {Name: "day"}},
			DoUpdates: clause.Assignments(map[string]any{
				"tokens":     gorm.Expr("ai_token_usages.tokens + ?", tokens),
				"updated_at": row.UpdatedAt,
			}),
		}).Create(&row).Error; err != nil {
			return err
		}
		var u AITokenUsage
		if err := tx.Where("org_id = ? AND day = ?", orgID, day).Take(&u).Error; err != nil {
			return err
		}
		total = u.Tokens
		return nil
	})
	return total, err
}

// SaveExchange stores an exchange's audit record; storing the same id again changes nothing.
func (s *Automation) SaveExchange(ctx context.Context, x *AIExchange) error {
	if x.CreatedAt.IsZero() {
		x.CreatedAt = time.Now().UTC()
	}
	return s.DB.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(x).Error
}

// Exchanges lists the audit records of a step or a run, oldest first.
func (s *Automation) Exchanges(ctx context.Context, orgID, stepOrRunID string) ([]AIExchange, error) {
	var out []AIExchange
	err := s.DB.WithContext(ctx).Where("org_id = ? AND (step_id = ? OR run_id = ?)", orgID, stepOrRunID, stepOrRunID).
		Order("created_at, id").Find(&out).Error
	return out, err
}

// SourceModel is the Source of an extraction a language model made (document-fields
// automation); such an extraction is always in requires_review.
const SourceModel = "model"

// AutomationRun is one run of a built-in automation (aut_ id): its subject, state and
// machine-written result.
type AutomationRun struct {
	ID        string `gorm:"primaryKey;size:40"`
	OrgID     string `gorm:"size:40;not null;index:ix_automation_runs_org_created,priority:1"`
	Kind      string `gorm:"size:40;not null"`
	SubjectID string `gorm:"size:40;not null;index"`
	// Status is pending, running, completed or failed.
	Status     string `gorm:"size:16;not null"`
	ExternalID string `gorm:"size:200"`
	// Result is the model's answer (document fields: the fields found), machine-written.
	Result      any              `gorm:"serializer:json;type:text"`
	Model       string           `gorm:"size:200"`
	Usage       automation.Usage `gorm:"serializer:json;type:text"`
	Error       string           `gorm:"type:text"`
	CreatedBy   string           `gorm:"size:40"`
	CreatedAt   time.Time        `gorm:"index:ix_automation_runs_org_created,priority:2"`
	UpdatedAt   time.Time
	CompletedAt *time.Time
}

// CreateRun stores a pending run; storing the same id again changes nothing.
func (s *Automation) CreateRun(ctx context.Context, r *AutomationRun) error {
	r.Status = "pending"
	return s.DB.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(r).Error
}

// GetRun returns a run of the organisation, or ErrNotFound.
func (s *Automation) GetRun(ctx context.Context, orgID, id string) (*AutomationRun, error) {
	var r AutomationRun
	err := s.DB.WithContext(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	return &r, err
}

// MarkRunRunning moves a pending run to running; any other state is left as it is.
func (s *Automation) MarkRunRunning(ctx context.Context, orgID, id string) error {
	return s.DB.WithContext(ctx).Model(&AutomationRun{}).Where("org_id = ? AND id = ? AND status = ?", orgID, id, "pending").
		Updates(map[string]any{"status": "running", "updated_at": time.Now().UTC()}).Error
}

// SaveRunResult stores the answer of a run that has not ended.
func (s *Automation) SaveRunResult(ctx context.Context, orgID, id string, result any, model string, usage automation.Usage) error {
	r := AutomationRun{Result: result, Model: model, Usage: usage, UpdatedAt: time.Now().UTC()}
	return s.DB.WithContext(ctx).Model(&AutomationRun{}).Where("org_id = ? AND id = ? AND status IN ?", orgID, id, []string{"pending", "running"}).
		Select("result", "model", "usage", "updated_at").Updates(&r).Error
}

// FinishRun records how a run ended; a run that ended already keeps its end.
func (s *Automation) FinishRun(ctx context.Context, orgID, id, status, msg string, at time.Time) error {
	at = at.UTC()
	return s.DB.WithContext(ctx).Model(&AutomationRun{}).Where("org_id = ? AND id = ? AND status IN ?", orgID, id, []string{"pending", "running"}).
		Updates(map[string]any{"status": status, "error": msg, "completed_at": at, "updated_at": time.Now().UTC()}).Error
}

// RunQuery narrows a list of runs beyond the common Filter (status, from, to, externalId).
type RunQuery struct {
	Filter
	// Kind and SubjectID, when set, keep the runs of one automation or of one case or document.
	Kind, SubjectID string
}

// ListRuns returns one page of the organisation's runs, newest first, and their total.
func (s *Automation) ListRuns(ctx context.Context, orgID string, page Offset, q RunQuery) ([]AutomationRun, int64, error) {
	scopes := []Scope{ForOrg(orgID), q.Scope(FilterColumns{Status: "status", ExternalID: "external_id"})}
	if q.Kind != "" {
		scopes = append(scopes, Where("kind = ?", q.Kind))
	}
	if q.SubjectID != "" {
		scopes = append(scopes, Where("subject_id = ?", q.SubjectID))
	}
	return ListOffset[AutomationRun](ctx, s.DB, page, "created_at DESC, id DESC", scopes...)
}

// DeleteUnstarted removes a pending run whose workflow could not be started, so that the
// request can be made again.
func (s *Automation) DeleteUnstarted(ctx context.Context, orgID, id string) error {
	return s.DB.WithContext(ctx).Where("org_id = ? AND id = ? AND status = ?", orgID, id, "pending").Delete(&AutomationRun{}).Error
}
