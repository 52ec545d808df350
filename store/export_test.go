package store

import "context"

// MigrationLock takes the lock Migrate takes on st's database and returns its release, so that
// tests can hold it while another migrator runs.
func MigrationLock(ctx context.Context, st *Store) (release func() error, err error) {
	db, err := st.DB.DB()
	if err != nil {
		return nil, err
	}
	session, locker, err := st.migrationLock(ctx, db)
	if err != nil {
		return nil, err
	}
	if locker != nil {
		if err := locker.Lock(ctx, db); err != nil {
			return nil, err
		}
		return func() error { return locker.Unlock(context.Background(), db) }, nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if err := session.SessionLock(ctx, conn); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return func() error {
		err := session.SessionUnlock(context.Background(), conn)
		_ = conn.Close()
		return err
	}, nil
}

// DecisionBatchesRetried is how many of st's decision batches failed and were written again
// decision by decision.
func DecisionBatchesRetried(st *Store) int64 { return st.decisions.retried.Load() }

// WriteDecisionBatch makes ins' decisions in one batch, in their order, as groupCommit does
// with decisions that arrive together.
func WriteDecisionBatch(ctx context.Context, st *Store, ins []FraudEvaluation) ([]*FraudDecided, error) {
	jobs := make([]*decisionJob, len(ins))
	for i, in := range ins {
		pre, err := st.Fraud.prepare(ctx, in)
		if err != nil {
			return nil, err
		}
		jobs[i] = &decisionJob{in: in, pre: pre}
	}
	if err := writeDecisions(ctx, st.handle, jobs); err != nil {
		return nil, err
	}
	out := make([]*FraudDecided, len(jobs))
	for i, j := range jobs {
		out[i] = j.out
	}
	return out, nil
}

// MigrateTo applies or rolls back st's migrations until version is the newest applied, so that a
// test can write rows as an older schema held them.
func MigrateTo(ctx context.Context, st *Store, version int64) error {
	p, err := st.migrationProvider(ctx)
	if err != nil {
		return err
	}
	current, err := p.GetDBVersion(ctx)
	if err != nil {
		return err
	}
	if current > version {
		_, err = p.DownTo(ctx, version)
	} else {
		_, err = p.UpTo(ctx, version)
	}
	return err
}
