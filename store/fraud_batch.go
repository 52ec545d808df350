package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/fraud"
	"github.com/svcplatform/svc/internal/ids"
)

// maxDecisionBatch caps the decisions one transaction writes.
const maxDecisionBatch = 64

// decisionJob is one request's decision waiting for, or written by, a batch (groupCommit). A
// batch keeps each decision's guarantees: its counters, decision, alert and event are written
// in the same transaction; decisions run one after another in it, so each reads the counters of
// those before it (exact velocity); a failing decision fails alone (groupCommit.commit). On
// PostgreSQL a batch first locks every counter row its decisions write, in one global order
// (lockVelocity), so two API processes' batches never wait for each other in a cycle, and each
// decision then writes and reads its counters in one round trip (observeVelocity).
type decisionJob struct {
	in   FraudEvaluation
	pre  *fraudPrepared
	out  *FraudDecided
	err  error
	done chan struct{}
}

func (j *decisionJob) finished() chan struct{} { return j.done }
func (j *decisionJob) fail(err error)          { j.out, j.err = nil, err }

// writeDecisions writes jobs in one transaction: each decision's subjects and counters in
// turn (each reads the counters of those before it), then the batch's decisions, alerts,
// events and audit entries, each kind in one insert. Each round trip of the transaction is
// time that other processes' decisions of the same entities wait on PostgreSQL.
func writeDecisions(ctx context.Context, h *handle, jobs []*decisionJob) error {
	var resolved entityIDs
	err := h.writeTxOnConn(ctx, func(tx *gorm.DB, conn *sql.Conn) error {
		var entities []velocityEntity
		for _, j := range jobs {
			entities = append(entities, entitiesOf(j.in.OrgID, j.pre.obs)...)
		}
		var err error
		if resolved, err = h.fraud.lockEntities(tx, entities); err != nil {
			return err
		}
		if err := evaluateBatch(tx, conn, jobs, resolved); err != nil {
			return err
		}
		rows := make([]FraudDecision, 0, len(jobs))
		var alerts []Alert
		var envs []events.Envelope
		for _, j := range jobs {
			out := j.out
			rows = append(rows, out.Decision)
			if out.Alert != nil {
				alerts = append(alerts, *out.Alert)
			}
			if out.event != nil {
				envs = append(envs, *out.event)
			}
		}
		if err := insertRows(tx, rows); err != nil {
			return fmt.Errorf("decisions: %w", err)
		}
		if err := raiseNewAlerts(tx, alerts); err != nil {
			return fmt.Errorf("alerts: %w", err)
		}
		published, err := publishNewEventsIn(tx, envs)
		if err != nil {
			return fmt.Errorf("events: %w", err)
		}
		var audits []AuditLog
		for _, j := range jobs {
			if out := j.out; out.Alert != nil {
				out.Alert, alerts = &alerts[0], alerts[1:]
			}
			if out := j.out; out.event != nil {
				out.Announced, published = published[0], published[1:]
			}
			if a := j.in.Audit; a != nil {
				e := *a
				e.ID, e.ResourceID, e.CreatedAt = ids.NewAt(ids.Audit, j.out.Decision.CreatedAt), j.out.Decision.ID, j.out.Decision.CreatedAt
				audits = append(audits, e)
			}
		}
		if err := insertRows(tx, audits); err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, j := range jobs {
		h.fraud.remember(j.in.OrgID, j.out.firstSeen)
	}
	h.fraud.rememberEntities(resolved)
	return nil
}

// evaluateBatch makes jobs' decisions in tx, one after another, each seeing the counters of
// those before it. On PostgreSQL (conn set) their velocity statements (one each, writing then
// reading: observeVelocity) are sent in one pipeline: the server still runs them one after
// another, each on a snapshot that holds those before it, but the batch waits for one round
// trip instead of one per decision, while it holds its entities. The rules, which need no
// database, run beside the batch's database work (decideAll).
func evaluateBatch(tx *gorm.DB, conn *sql.Conn, jobs []*decisionJob, resolved entityIDs) error {
	d := newDecideAll(jobs)
	if conn == nil {
		for i, j := range jobs {
			seen, err := noteDecisionSubjects(tx, j.in, j.pre)
			if err != nil {
				return d.abandon(err)
			}
			features, err := observeVelocity(tx, resolved.keyed(j.in.OrgID, j.pre.obs), j.pre.features)
			if err != nil {
				return d.abandon(err)
			}
			d.start(i, seen, features)
		}
		return d.wait()
	}
	seen := make([]subjectsSeen, len(jobs))
	reads := make([]*velocityRead, len(jobs))
	for i, j := range jobs {
		var err error
		if seen[i], err = noteDecisionSubjects(tx, j.in, j.pre); err != nil {
			return err
		}
		reads[i] = observeRead(resolved.keyed(j.in.OrgID, j.pre.obs), j.pre.features)
	}
	features, err := pipelineVelocity(tx.Statement.Context, conn, reads)
	if err != nil {
		return err
	}
	for i := range jobs {
		d.start(i, seen[i], features[i])
	}
	return d.wait()
}

// decideAll runs a batch's decide calls on goroutines of their own, each as soon as its
// decision's reads are done: on SQLite the one writer goes on to the next decision's statements
// meanwhile, on PostgreSQL the batch's decisions are evaluated side by side, while it holds
// its entities.
type decideAll struct {
	jobs []*decisionJob
	errs []error
	wg   sync.WaitGroup
}

func newDecideAll(jobs []*decisionJob) *decideAll {
	return &decideAll{jobs: jobs, errs: make([]error, len(jobs))}
}

func (d *decideAll) start(i int, seen subjectsSeen, features fraud.Features) {
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		j := d.jobs[i]
		j.out, d.errs[i] = decide(j.in, j.pre, seen, features)
	}()
}

// wait waits for every decide started and returns their errors.
func (d *decideAll) wait() error {
	d.wg.Wait()
	return errors.Join(d.errs...)
}

// abandon waits for the decide calls started, so none outlives the batch, and returns err.
func (d *decideAll) abandon(err error) error {
	d.wg.Wait()
	return err
}
