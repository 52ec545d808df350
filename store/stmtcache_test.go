package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"
)

// TestWriteTxRunsStatementsPrepared: on SQLite a statement WriteTx runs is prepared once, in the
// background, and later transactions run that prepared statement, committing and rolling back
// as transactions do; statements past the pool's size still run (unprepared) and correctly.
func TestWriteTxRunsStatementsPrepared(t *testing.T) {
	ctx := context.Background()
	st, _ := openSQLiteFile(t, "CREATE TABLE stmt_probe (n INTEGER NOT NULL)")
	const insert = "INSERT INTO stmt_probe (n) VALUES (?)"
	write := func(n int, keep bool) {
		t.Helper()
		errRollback := fmt.Errorf("roll back")
		err := st.WriteTx(ctx, func(tx *gorm.DB) error {
			if err := tx.Exec(insert, n).Error; err != nil {
				return err
			}
			if !keep {
				return errRollback
			}
			return nil
		})
		if err != nil && (keep || err != errRollback) {
			t.Fatal(err)
		}
	}
	write(1, true)
	deadline := time.Now().Add(10 * time.Second)
	for !st.stmts.stmts.Contains(insert) {
		if time.Now().After(deadline) {
			t.Fatal("the statement was never prepared")
		}
		time.Sleep(10 * time.Millisecond)
	}
	write(2, true)
	write(3, false)
	write(4, true)
	for i := range stmtPoolSize + 10 { // evicts the first ones while they may still be in use
		q := fmt.Sprintf("INSERT INTO stmt_probe (n) VALUES (? + %d)", 1000*(i+1))
		if err := st.WriteTx(ctx, func(tx *gorm.DB) error { return tx.Exec(q, 0).Error }); err != nil {
			t.Fatal(err)
		}
	}
	write(5, true)
	var small []int
	if err := st.DB.Raw("SELECT n FROM stmt_probe WHERE n < 1000 ORDER BY n").Scan(&small).Error; err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(small) != "[1 2 4 5]" {
		t.Errorf("rows %v, want [1 2 4 5]", small)
	}
	var large int64
	if err := st.DB.Raw("SELECT count(*) FROM stmt_probe WHERE n >= 1000").Scan(&large).Error; err != nil {
		t.Fatal(err)
	}
	if large != stmtPoolSize+10 {
		t.Errorf("%d rows of the distinct statements, want %d", large, stmtPoolSize+10)
	}
	if n := st.stmts.stmts.Len(); n > stmtPoolSize {
		t.Errorf("the pool holds %d statements, more than %d", n, stmtPoolSize)
	}
}
