package store

import (
	"context"
	"fmt"
	"sync"

	"gorm.io/gorm"
)

// maxDecisionBatch caps the decisions one transaction writes.
const maxDecisionBatch = 64

// decisionQueue groups the decisions of concurrent requests of this process into one database
// transaction (group commit). A bench/fraudevaluate profile showed decisions queued behind one
// another for the write lock (SQLite) or the hot counter rows (PostgreSQL), each paying a whole
// transaction and commit; together they pay one. Each decision keeps every guarantee: its
// counters, decision and alert are written in the same transaction, behind a savepoint so a
// failing decision takes none of the others with it; decisions run one after another in it, so
// each reads the counters of those before it (exact velocity); and none answers before the
// commit.
type decisionQueue struct {
	// turn is held by the request writing a batch; mu guards pending and the jobs' results.
	turn    sync.Mutex
	mu      sync.Mutex
	pending []*decisionJob
}

// decisionJob is one request's decision waiting for, or written by, a batch.
type decisionJob struct {
	in   FraudEvaluation
	pre  *fraudPrepared
	done bool
	out  *FraudDecided
	err  error
}

// decide queues a decision and returns once a batch wrote it: the request that takes the turn
// writes every decision queued until then, its own among them unless an earlier batch took it.
func (q *decisionQueue) decide(ctx context.Context, h *handle, in FraudEvaluation, pre *fraudPrepared) (*FraudDecided, error) {
	job := &decisionJob{in: in, pre: pre}
	q.mu.Lock()
	q.pending = append(q.pending, job)
	q.mu.Unlock()
	for {
		q.turn.Lock()
		q.mu.Lock()
		if job.done {
			q.mu.Unlock()
			q.turn.Unlock()
			return job.out, job.err
		}
		n := min(len(q.pending), maxDecisionBatch)
		jobs := q.pending[:n:n]
		q.pending = append([]*decisionJob(nil), q.pending[n:]...)
		q.mu.Unlock()
		// The batch is every waiting request's, not only this one's: a client going away must
		// not roll back the others' decisions.
		writeDecisions(context.WithoutCancel(ctx), h, jobs)
		q.mu.Lock()
		for _, j := range jobs {
			j.done = true
		}
		q.mu.Unlock()
		q.turn.Unlock()
	}
}

// writeDecisions writes jobs in one transaction, each behind its own savepoint.
func writeDecisions(ctx context.Context, h *handle, jobs []*decisionJob) {
	err := h.WriteTx(ctx, func(tx *gorm.DB) error {
		if len(jobs) == 1 { // alone, its failure is the transaction's: no savepoint to pay for
			j := jobs[0]
			j.out, j.err = evaluateIn(tx, j.in, j.pre)
			return j.err
		}
		for i, j := range jobs {
			sp := fmt.Sprintf("decision%d", i)
			if err := tx.SavePoint(sp).Error; err != nil {
				return err
			}
			j.out, j.err = evaluateIn(tx, j.in, j.pre)
			if j.err != nil {
				j.out = nil
				if err := tx.RollbackTo(sp).Error; err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		for _, j := range jobs {
			if j.err == nil {
				j.out, j.err = nil, err
			}
		}
	}
}
