package store

import (
	"context"
	"path/filepath"
	"testing"
)

// openSQLiteFile opens a store on a new SQLite file (not migrated), runs ddl in it, and
// returns it, closed when the test ends, with the file's path.
func openSQLiteFile(t *testing.T, ddl ...string) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "svc.db")
	st, err := Open(context.Background(), "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	for _, q := range ddl {
		if err := st.DB.Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	return st, path
}
