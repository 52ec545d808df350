package blobs_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/svcplatform/svc/internal/blobs"
)

func newLocal(t *testing.T) *blobs.Local {
	t.Helper()
	l, err := blobs.NewLocal(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// fixture is one store under test and the directory its spools are written to.
type fixture struct {
	store    blobs.Store
	spoolDir string
}

// forEachStore runs the conformance test fn against every Store: the local directory and an
// S3 bucket on an S3-compatible server inside the test process.
func forEachStore(t *testing.T, fn func(t *testing.T, f fixture)) {
	t.Run("local", func(t *testing.T) {
		l := newLocal(t)
		fn(t, fixture{store: l, spoolDir: filepath.Join(l.Dir(), "tmp")})
	})
	t.Run("s3", func(t *testing.T) {
		s, dir := newS3(t)
		fn(t, fixture{store: s, spoolDir: dir})
	})
}

// tmpFiles lists what is left in the store's spool directory.
func tmpFiles(t *testing.T, f fixture) []string {
	t.Helper()
	es, err := os.ReadDir(f.spoolDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestPutOpenRoundTrip(t *testing.T) { forEachStore(t, testPutOpenRoundTrip) }

func testPutOpenRoundTrip(t *testing.T, f fixture) {
	ctx := context.Background()
	l := f.store
	content := bytes.Repeat([]byte("document bytes "), 10_000)
	sum := sha256.Sum256(content)
	want := hex.EncodeToString(sum[:])

	b, err := blobs.Put(ctx, l, bytes.NewReader(content), int64(len(content)))
	if err != nil {
		t.Fatal(err)
	}
	if b.SHA256 != want || b.Size != int64(len(content)) || b.Key != "sha256/"+want[:2]+"/"+want || b.Key != blobs.KeyFor(want) {
		t.Fatalf("blob = %+v, want digest %s size %d", b, want, len(content))
	}
	got, err := blobs.ReadAll(ctx, l, b.Key, b.Size)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("ReadAll = %d bytes, %v", len(got), err)
	}
	if _, err := blobs.ReadAll(ctx, l, b.Key, b.Size-1); !errors.Is(err, blobs.ErrTooLarge) {
		t.Errorf("ReadAll below the size: %v, want ErrTooLarge", err)
	}
	// The same bytes again: the same key, one file, nothing left over.
	b2, err := blobs.Put(ctx, l, bytes.NewReader(content), int64(len(content)))
	if err != nil || b2 != b {
		t.Fatalf("second Put = %+v, %v", b2, err)
	}
	if left := tmpFiles(t, f); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// Deleting removes it, and deleting again is not an error.
	if err := l.Delete(ctx, b.Key); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Open(ctx, b.Key); !errors.Is(err, blobs.ErrNotFound) {
		t.Errorf("Open after Delete: %v, want ErrNotFound", err)
	}
	if err := l.Delete(ctx, b.Key); err != nil {
		t.Errorf("second Delete: %v", err)
	}
}

func TestLocalBlobsAreReadOnly(t *testing.T) {
	ctx := context.Background()
	l := newLocal(t)
	b, err := blobs.Put(ctx, l, strings.NewReader("kept"), 100)
	if err != nil {
		t.Fatal(err)
	}
	// A stored blob cannot be written through its file.
	path := filepath.Join(l.Dir(), filepath.FromSlash(b.Key))
	if st, err := os.Stat(path); err != nil || st.Mode().Perm()&0o222 != 0 {
		t.Errorf("stored file %s: %v, mode %v (want read-only)", path, err, st.Mode())
	}
}

func TestLimit(t *testing.T) { forEachStore(t, testLimit) }

func testLimit(t *testing.T, f fixture) {
	ctx := context.Background()
	l := f.store
	tests := []struct {
		name  string
		size  int
		limit int64
		err   error
	}{
		{"empty", 0, 10, nil},
		{"at the limit", 10, 10, nil},
		{"one byte over", 11, 10, blobs.ErrTooLarge},
		{"far over", 1 << 20, 1000, blobs.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := blobs.Put(ctx, l, bytes.NewReader(bytes.Repeat([]byte{'x'}, tt.size)), tt.limit)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Put = %+v, %v; want %v", b, err, tt.err)
			}
			if err == nil && b.Size != int64(tt.size) {
				t.Errorf("size %d, want %d", b.Size, tt.size)
			}
			if left := tmpFiles(t, f); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func TestSpoolCommitAndClose(t *testing.T) { forEachStore(t, testSpoolCommitAndClose) }

func testSpoolCommitAndClose(t *testing.T, f fixture) {
	ctx := context.Background()
	l := f.store
	sp, err := l.Spool(ctx, strings.NewReader("held back"), 100)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sp.Reader()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r); string(b) != "held back" {
		t.Fatalf("spool reads %q", b)
	}
	if _, err := l.Open(ctx, blobs.KeyFor(sp.SHA256)); !errors.Is(err, blobs.ErrNotFound) {
		t.Fatalf("an uncommitted spool is readable: %v", err)
	}
	// A discarded spool leaves nothing.
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sp.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := l.Commit(ctx, sp); err == nil {
		t.Error("a closed spool was committed")
	}
	if left := tmpFiles(t, f); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestLocalRefusesAnotherStoresSpool(t *testing.T) {
	ctx := context.Background()
	l := newLocal(t)
	other := newLocal(t)
	sp2, err := other.Spool(ctx, strings.NewReader("elsewhere"), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer sp2.Close()
	if _, err := l.Commit(ctx, sp2); err == nil {
		t.Error("a spool of another store was committed")
	}
}

func TestOpenRefusesMalformedKeys(t *testing.T) { forEachStore(t, testOpenRefusesMalformedKeys) }

func testOpenRefusesMalformedKeys(t *testing.T, f fixture) {
	ctx := context.Background()
	l := f.store
	if err := os.WriteFile(filepath.Join(filepath.Dir(f.spoolDir), "..", "outside"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	digest := strings.Repeat("ab", 32)
	for _, key := range []string{
		"", "../outside", "sha256/../../outside", "sha256/ab/../../../outside", "sha256/cd/" + digest,
		"sha256/ab/" + strings.ToUpper(digest), "sha256/ab/" + digest + "/x", "/etc/passwd", "sha256/ab/" + digest[:10],
		"sha256/ab/" + digest, // well formed, absent
	} {
		if rc, err := l.Open(ctx, key); !errors.Is(err, blobs.ErrNotFound) {
			if rc != nil {
				rc.Close()
			}
			t.Errorf("Open(%q) = %v, want ErrNotFound", key, err)
		}
	}
}

func TestConcurrentPutsOfTheSameContent(t *testing.T) {
	forEachStore(t, testConcurrentPutsOfTheSameContent)
}

func testConcurrentPutsOfTheSameContent(t *testing.T, f fixture) {
	ctx := context.Background()
	l := f.store
	content := bytes.Repeat([]byte("same"), 50_000)
	var wg sync.WaitGroup
	keys := make([]string, 8)
	errs := make([]error, 8)
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := blobs.Put(ctx, l, bytes.NewReader(content), 1<<20)
			keys[i], errs[i] = b.Key, err
		}()
	}
	wg.Wait()
	for i := range keys {
		if errs[i] != nil || keys[i] != keys[0] {
			t.Fatalf("put %d: %q, %v (first %q)", i, keys[i], errs[i], keys[0])
		}
	}
	got, err := blobs.ReadAll(ctx, l, keys[0], 1<<20)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
	if left := tmpFiles(t, f); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestCancelledContextStoresNothing(t *testing.T) {
	forEachStore(t, testCancelledContextStoresNothing)
}

func testCancelledContextStoresNothing(t *testing.T, f fixture) {
	l := f.store
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := blobs.Put(ctx, l, strings.NewReader("late"), 100); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put on a cancelled context: %v", err)
	}
	if left := tmpFiles(t, f); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
