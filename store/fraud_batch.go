package store

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/ids"
)

// maxDecisionBatch caps the decisions one transaction writes.
const maxDecisionBatch = 64

// decisionJob is one request's decision waiting for, or written by, a batch (groupCommit).
// Only SQLite decisions batch: on PostgreSQL a batch would lock the counter rows of its
// decisions in no global order, so two API processes' batches could deadlock; there each
// decision's transaction locks its rows in order and runs beside the others. A batch keeps each
// decision's guarantees: its counters, decision and alert are written in the same transaction;
// decisions run one after another in it, so each reads the counters of those before it (exact
// velocity); a failing decision fails alone (groupCommit.commit).
type decisionJob struct {
	in   FraudEvaluation
	pre  *fraudPrepared
	out  *FraudDecided
	err  error
	done chan struct{}
}

func (j *decisionJob) finished() chan struct{} { return j.done }
func (j *decisionJob) fail(err error)          { j.out, j.err = nil, err }

// writeDecisions writes jobs in one transaction: each decision's subjects, counters and alert
// in turn (each reads the counters of those before it), then the decisions in one insert and
// their requests' audit entries in another.
func writeDecisions(ctx context.Context, h *handle, jobs []*decisionJob) error {
	err := h.WriteTx(ctx, func(tx *gorm.DB) error {
		rows := make([]FraudDecision, 0, len(jobs))
		for _, j := range jobs {
			out, err := evaluateIn(tx, j.in, j.pre)
			if err != nil {
				return err
			}
			j.out = out
			rows = append(rows, out.Decision)
		}
		if err := insertRows(tx, rows); err != nil {
			return fmt.Errorf("decisions: %w", err)
		}
		var audits []AuditLog
		for _, j := range jobs {
			if a := j.in.Audit; a != nil {
				e := *a
				e.ID, e.ResourceID, e.CreatedAt = ids.NewAt(ids.Audit, j.out.Decision.CreatedAt), j.out.Decision.ID, j.out.Decision.CreatedAt
				audits = append(audits, e)
			}
		}
		if len(audits) > 0 {
			if err := insertRows(tx, audits); err != nil {
				return fmt.Errorf("audit: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, j := range jobs {
		h.fraud.remember(j.in.OrgID, j.out.firstSeen)
	}
	return nil
}
