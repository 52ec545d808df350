package store

import (
	"context"
	"errors"
	"testing"
)

type probeJob struct {
	bad  bool
	err  error
	done chan struct{}
}

func (j *probeJob) finished() chan struct{} { return j.done }
func (j *probeJob) fail(err error)          { j.err = err }

// TestGroupCommitFailsOnlyTheFailingJob: a batch whose transaction fails is written again job by
// job, so the good jobs of it are kept and only the bad one fails.
func TestGroupCommitFailsOnlyTheFailingJob(t *testing.T) {
	var kept []*probeJob
	var batches int
	q := newGroupCommit(8, func(_ context.Context, jobs []*probeJob) error {
		batches++
		for _, j := range jobs {
			if j.bad {
				return errors.New("bad job")
			}
		}
		kept = append(kept, jobs...)
		return nil
	})
	jobs := []*probeJob{{}, {bad: true}, {}}
	q.commit(context.Background(), jobs)
	if len(kept) != 2 || kept[0] != jobs[0] || kept[1] != jobs[2] || batches != 4 {
		t.Fatalf("kept %v after %d transactions, want the two good jobs after 4 (one batch, then each alone)", kept, batches)
	}
	if jobs[0].err != nil || jobs[2].err != nil || jobs[1].err == nil {
		t.Fatalf("errors %v, %v, %v: want only the bad job's", jobs[0].err, jobs[1].err, jobs[2].err)
	}
}
