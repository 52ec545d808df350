package store

import (
	"context"
	"sync"
	"sync/atomic"
)

// groupCommit groups the SQLite writes of concurrent requests of this process into shared
// transactions (group commit). SQLite has one writer: requests queued behind one another each
// paid a whole transaction and commit; together they pay one. Each job keeps its guarantees:
// none answers before the transaction holding it committed, and a failing job fails alone: when
// a batch's transaction fails, nothing of it is kept and each job is written again by itself
// (cheaper than a savepoint per job on every batch).
type groupCommit[J groupJob] struct {
	// turn is held by the request writing a batch; mu guards pending.
	turn    chan struct{}
	mu      sync.Mutex
	pending []J
	max     int
	// write writes jobs in one transaction; an error means none of them was kept.
	write func(ctx context.Context, jobs []J) error
	// retried counts the batches that failed and were written again job by job.
	retried atomic.Int64
}

// groupJob is one request's write, done once a batch wrote it, failed by fail otherwise.
type groupJob interface {
	finished() chan struct{}
	fail(err error)
}

func newGroupCommit[J groupJob](maxBatch int, write func(ctx context.Context, jobs []J) error) *groupCommit[J] {
	return &groupCommit[J]{turn: make(chan struct{}, 1), max: maxBatch, write: write}
}

// run queues job and returns once a batch wrote it: the request that takes the turn writes every
// job queued until then (at most max), its own among them unless an earlier batch took it.
func (q *groupCommit[J]) run(ctx context.Context, job J) {
	q.mu.Lock()
	q.pending = append(q.pending, job)
	q.mu.Unlock()
	for {
		select {
		case <-job.finished():
			return
		case q.turn <- struct{}{}:
		}
		q.mu.Lock()
		n := min(len(q.pending), q.max)
		jobs := q.pending[:n:n]
		q.pending = append([]J(nil), q.pending[n:]...)
		q.mu.Unlock()
		if n > 0 {
			// The batch is every waiting request's, not only this one's: a client going away
			// must not roll back the others' writes.
			q.commit(context.WithoutCancel(ctx), jobs)
			for _, j := range jobs {
				close(j.finished())
			}
		}
		<-q.turn
	}
}

// commit writes jobs in one transaction, or, when that fails, each alone, so that only a job's
// own failure fails it.
func (q *groupCommit[J]) commit(ctx context.Context, jobs []J) {
	err := q.write(ctx, jobs)
	switch {
	case err == nil:
	case len(jobs) == 1:
		jobs[0].fail(err)
	default:
		q.retried.Add(1)
		for _, j := range jobs {
			q.commit(ctx, []J{j})
		}
	}
}
