package store

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
)

// TestWriterLogCheckpointedInBackground: WriteTx's connection never checkpoints in its commits,
// and the checkpointer copies its log into the database file soon after: without it the rows
// would stay in the log and the file would not grow.
func TestWriterLogCheckpointedInBackground(t *testing.T) {
	ctx := context.Background()
	st, path := openSQLiteFile(t, "CREATE TABLE checkpoint_probe (n INTEGER PRIMARY KEY, filler TEXT NOT NULL)")
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	filler := strings.Repeat("x", 4000) // about a page a row
	for batch := range 4 {
		err := st.WriteTx(ctx, func(tx *gorm.DB) error {
			for i := range 100 {
				if err := tx.Exec("INSERT INTO checkpoint_probe (n, filler) VALUES (?, ?)", batch*100+i, filler).Error; err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	want := before + 400*4000
	deadline := time.Now().Add(10 * time.Second)
	for size() < want {
		if time.Now().After(deadline) {
			t.Fatalf("database file %d bytes 10 s after the commits, want at least %d: the log was not checkpointed", size(), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var n int64
	if err := st.DB.Raw("SELECT COUNT(*) FROM checkpoint_probe").Scan(&n).Error; err != nil || n != 400 {
		t.Fatalf("rows %d (%v), want 400", n, err)
	}
}
