package store

import (
	"context"
	"path/filepath"
	"testing"
)

// openSQLiteFile opens a store on a new SQLite file (not migrated), closed when the test ends,
// and returns the file's path.
func openSQLiteFile(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "svc.db")
	st, err := Open(context.Background(), "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st, path
}
