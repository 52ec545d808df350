package store

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/fraud"
)

// Backtest states.
const (
	BacktestRunning   = "running"
	BacktestCompleted = "completed"
	BacktestFailed    = "failed"
	BacktestCancelled = "cancelled"
)

// subjectScope selects the decisions a rule set decides: transactions, or events of its type.
func subjectScope(appliesTo string) Scope {
	if appliesTo == string(fraud.KindTransaction) {
		return Where("kind = ?", string(fraud.KindTransaction))
	}
	return Where("kind = ? AND event_type = ?", string(fraud.KindEvent), appliesTo)
}

// CreateBacktest saves a running backtest with the number of decisions it will replay.
func (s *Fraud) CreateBacktest(ctx context.Context, bt *FraudBacktest, appliesTo string) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Model(&FraudDecision{}).Scopes(ForOrg(bt.OrgID), subjectScope(appliesTo)).
			Where("occurred_at >= ? AND occurred_at <= ?", bt.From, bt.To).Count(&bt.Total).Error; err != nil {
			return err
		}
		return tx.Create(bt).Error
	})
}

// GetBacktest loads a backtest of the organisation.
func (s *Fraud) GetBacktest(ctx context.Context, orgID, id string) (*FraudBacktest, error) {
	return takeInOrg[FraudBacktest](s.DB.WithContext(ctx), orgID, id)
}

// BacktestPage returns up to limit decisions of the backtest's range after the decision id
// after ("" for the first page), in id order.
func (s *Fraud) BacktestPage(ctx context.Context, bt *FraudBacktest, appliesTo, after string, limit int) ([]FraudDecision, error) {
	var rows []FraudDecision
	err := s.DB.WithContext(ctx).Scopes(ForOrg(bt.OrgID), subjectScope(appliesTo)).
		Where("occurred_at >= ? AND occurred_at <= ? AND id > ?", bt.From, bt.To, after).
		Order("id").Limit(limit).Find(&rows).Error
	return rows, err
}

// SaveBacktest records a backtest's progress and report; a final status sets CompletedAt.
// A backtest that already ended is not changed.
func (s *Fraud) SaveBacktest(ctx context.Context, orgID, id, status string, done int64, report, errMsg string) error {
	updates := map[string]any{"status": status, "done": done, "report": report, "error": errMsg}
	if status != BacktestRunning {
		updates["completed_at"] = time.Now().UTC()
	}
	return s.DB.WithContext(ctx).Model(&FraudBacktest{}).Where("org_id = ? AND id = ? AND status = ?", orgID, id, BacktestRunning).Updates(updates).Error
}

// ListValues reads the whole of the organisation's value lists the rule set names.
func (s *Fraud) ListValues(ctx context.Context, orgID string, rs *fraud.RuleSet) (map[string]map[string]bool, error) {
	return loadLists(s.DB.WithContext(ctx), orgID, rs)
}
