package store

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// checkpointer copies the SQLite write-ahead log back into the database file off the write
// path. By default the connection whose commit takes the log past 1,000 pages does it, inside
// that commit: a profile of bench/fraudevaluate had a quarter of the decisions' serial write
// transaction there. The hot paths' writer connection turns that off (wal_autocheckpoint(0))
// and, after its commits, wakes this one, which checkpoints on a connection of its own without
// blocking writers (PASSIVE). Every other connection keeps SQLite's default.
type checkpointer struct {
	db   *sql.DB
	wake chan struct{}
	stop chan struct{}
	done sync.WaitGroup
}

// checkpointPause spaces checkpoints: each pays an fsync of the database file. At the fraud
// benchmark's rate a checkpoint then copies a few hundred pages, SQLite's default 1,000 at most.
const checkpointPause = 200 * time.Millisecond

func newCheckpointer(db *sql.DB) *checkpointer {
	db.SetMaxOpenConns(1)
	c := &checkpointer{db: db, wake: make(chan struct{}, 1), stop: make(chan struct{})}
	c.done.Add(1)
	go c.run()
	return c
}

// committed tells the checkpointer that a commit added to the log (it never blocks).
func (c *checkpointer) committed() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *checkpointer) run() {
	defer c.done.Done()
	for {
		select {
		case <-c.stop:
			return
		case <-c.wake:
		}
		// A failed checkpoint is tried again after the next commit.
		_, _ = c.db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
		select {
		case <-c.stop:
			return
		case <-time.After(checkpointPause):
		}
	}
}

// close stops the checkpointer; closing the last connection checkpoints what is left.
func (c *checkpointer) close() error {
	close(c.stop)
	c.done.Wait()
	return c.db.Close()
}
