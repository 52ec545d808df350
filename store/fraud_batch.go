package store

import (
	"context"
	"fmt"
	"sync"

	"gorm.io/gorm"
)

// maxDecisionBatch caps the decisions one transaction writes.
const maxDecisionBatch = 64

// decisionQueue groups the SQLite decisions of concurrent requests of this process into one
// database transaction (group commit). A bench/fraudevaluate profile showed decisions queued
// behind one another for SQLite's one write lock, each paying a whole transaction and commit;
// together they pay one. PostgreSQL decisions do not batch: a batch locks the counter rows of
// its decisions in no global order, so two API processes' batches could deadlock; there each
// decision's transaction locks its rows in order and runs beside the others. Each decision keeps every guarantee: its
// counters, decision and alert are written in the same transaction; a failing decision fails
// alone (writeDecisions); decisions run one after another in it, so each reads the counters of
// those before it (exact velocity); and none answers before the commit.
type decisionQueue struct {
	// turn is held by the request writing a batch; mu guards pending.
	turn    chan struct{}
	mu      sync.Mutex
	pending []*decisionJob
}

func newDecisionQueue() decisionQueue { return decisionQueue{turn: make(chan struct{}, 1)} }

// decisionJob is one request's decision waiting for, or written by, a batch.
type decisionJob struct {
	in   FraudEvaluation
	pre  *fraudPrepared
	out  *FraudDecided
	err  error
	done chan struct{}
}

// decide queues a decision and returns once a batch wrote it: the request that takes the turn
// writes every decision queued until then, its own among them unless an earlier batch took it.
func (q *decisionQueue) decide(ctx context.Context, h *handle, in FraudEvaluation, pre *fraudPrepared) (*FraudDecided, error) {
	job := &decisionJob{in: in, pre: pre, done: make(chan struct{})}
	q.mu.Lock()
	q.pending = append(q.pending, job)
	q.mu.Unlock()
	for {
		select {
		case <-job.done:
			return job.out, job.err
		case q.turn <- struct{}{}:
		}
		q.mu.Lock()
		n := min(len(q.pending), maxDecisionBatch)
		jobs := q.pending[:n:n]
		q.pending = append([]*decisionJob(nil), q.pending[n:]...)
		q.mu.Unlock()
		if n > 0 {
			// The batch is every waiting request's, not only this one's: a client going away
			// must not roll back the others' decisions.
			writeDecisions(context.WithoutCancel(ctx), h, jobs)
			for _, j := range jobs {
				close(j.done)
			}
		}
		<-q.turn
	}
}

// writeDecisions writes jobs in one transaction: each decision's subjects, counters and alert
// in turn (each reads the counters of those before it), then the decisions in one insert.
// When one fails, nothing of the batch is kept and each decision is written again alone, so
// only its own failure fails it (cheaper than a savepoint per decision on every batch).
func writeDecisions(ctx context.Context, h *handle, jobs []*decisionJob) {
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
		if err := tx.Create(&rows).Error; err != nil {
			return fmt.Errorf("decisions: %w", err)
		}
		return nil
	})
	if err == nil {
		for _, j := range jobs {
			h.fraud.remember(j.in.OrgID, j.out.firstSeen)
		}
		return
	}
	if len(jobs) == 1 {
		jobs[0].out, jobs[0].err = nil, err
		return
	}
	for _, j := range jobs {
		j.out = nil
		writeDecisions(ctx, h, []*decisionJob{j})
	}
}
