// Package blobs keeps uploaded files and the artifacts derived from them, addressed by the
// SHA-256 of their content: the same bytes stored twice are kept once, and a key names its
// bytes forever (nothing is rewritten in place).
//
// Local keeps them in a directory (config documents.blob_dir, <data_dir>/blobs by default); S3
// keeps them in a bucket of an S3-compatible service (config blobs.backend=s3), for deployments
// whose API and worker processes share no file system.
// Every write streams into a private temporary file in the same directory while hashing, is
// synced, then renamed into place: a reader never sees a partial blob, and a crash leaves at
// most a temporary file behind. Several processes may share the directory (a shared volume).
package blobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ErrTooLarge is returned when a blob is larger than the limit it was written with.
var ErrTooLarge = errors.New("blobs: larger than the limit")

// ErrNotFound is returned by Open for a key that names no stored blob.
var ErrNotFound = errors.New("blobs: not found")

// Blob describes a stored blob.
type Blob struct {
	// Key names the blob in its store: "sha256/<first two hex digits>/<hex digest>".
	Key string
	// Size is its length in bytes.
	Size int64
	// SHA256 is the lowercase hex digest of its content.
	SHA256 string
}

// Store keeps blobs by content. Writing is two steps, so that an upload handler can hold the
// file while it checks the rest of its request: Spool streams the content into a private
// temporary file, Commit stores it (Put does both).
type Store interface {
	// Spool streams r into a temporary file, at most limit bytes (ErrTooLarge beyond it, and
	// nothing is kept), hashing it as it goes. Close the spool when done with it.
	Spool(ctx context.Context, r io.Reader, limit int64) (*Spool, error)
	// Commit stores a spool made by this store and returns the blob. Storing the same bytes
	// again returns the same key and keeps one copy.
	Commit(ctx context.Context, sp *Spool) (Blob, error)
	// Open returns a reader of the blob named key (ErrNotFound when there is none).
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Delete removes the blob named key; deleting one that is not there is not an error.
	Delete(ctx context.Context, key string) error
}

// Put streams r into s, at most limit bytes, and returns the stored blob.
func Put(ctx context.Context, s Store, r io.Reader, limit int64) (Blob, error) {
	sp, err := s.Spool(ctx, r, limit)
	if err != nil {
		return Blob{}, err
	}
	defer sp.Close()
	return s.Commit(ctx, sp)
}

// Local is a Store in a directory on the local file system.
type Local struct {
	dir string
}

// NewLocal returns a Store in dir, creating it (mode 0700) when needed.
func NewLocal(dir string) (*Local, error) {
	if dir == "" {
		return nil, errors.New("blobs: no directory")
	}
	for _, d := range []string{dir, filepath.Join(dir, "tmp"), filepath.Join(dir, "sha256")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("blobs: %w", err)
		}
	}
	return &Local{dir: dir}, nil
}

// Dir is the directory the store keeps its blobs in.
func (l *Local) Dir() string { return l.dir }

// Open implements Store.
func (l *Local) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path, ok := l.path(key)
	if !ok {
		return nil, fmt.Errorf("%w: malformed key %q", ErrNotFound, key)
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	if err != nil {
		return nil, fmt.Errorf("blobs: %w", err)
	}
	return f, nil
}

// Delete removes the blob named key; deleting one that is not there is not an error. The
// store keeps one copy per content: the caller makes sure nothing else refers to it.
func (l *Local) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	path, ok := l.path(key)
	if !ok {
		return fmt.Errorf("%w: malformed key %q", ErrNotFound, key)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("blobs: %w", err)
	}
	return nil
}

// ReadAll reads the whole blob named key, refusing one larger than limit bytes.
func ReadAll(ctx context.Context, s Store, key string, limit int64) ([]byte, error) {
	rc, err := s.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("blobs: read %s: %w", key, err)
	}
	if int64(len(b)) > limit {
		return nil, ErrTooLarge
	}
	return b, nil
}

// KeyFor is the key of content with the given hex SHA-256 digest.
func KeyFor(sha256Hex string) string {
	return "sha256/" + sha256Hex[:2] + "/" + sha256Hex
}

// path maps a key to its file, refusing anything that is not a well-formed key (so a key can
// never name a file outside the store).
func (l *Local) path(key string) (string, bool) {
	if !validKey(key) {
		return "", false
	}
	return filepath.Join(l.dir, filepath.FromSlash(key)), true
}

// validKey reports whether key has the form "sha256/<first two hex digits>/<hex digest>".
func validKey(key string) bool {
	parts := strings.Split(key, "/")
	return len(parts) == 3 && parts[0] == "sha256" && isHexDigest(parts[2]) && parts[1] == parts[2][:2]
}

func isHexDigest(s string) bool {
	if len(s) != sha256.Size*2 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// Spool is content held in a private temporary file until it is committed or closed. Its size
// and digest are known once it is written.
type Spool struct {
	f      *os.File
	Size   int64
	SHA256 string
}

// Spool implements Store: the temporary file is in the store's directory, so Commit renames it.
func (l *Local) Spool(ctx context.Context, r io.Reader, limit int64) (*Spool, error) {
	return spoolTo(ctx, filepath.Join(l.dir, "tmp"), r, limit)
}

// spoolTo streams r into a new temporary file in dir, hashing it, at most limit bytes.
func spoolTo(ctx context.Context, dir string, r io.Reader, limit int64) (*Spool, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "spool-*")
	if err != nil {
		return nil, fmt.Errorf("blobs: %w", err)
	}
	sp := &Spool{f: f}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), &ctxReader{ctx: ctx, r: io.LimitReader(r, limit+1)})
	if err == nil && n > limit {
		err = ErrTooLarge
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		sp.Close()
		if errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("blobs: write: %w", err)
	}
	sp.Size, sp.SHA256 = n, hex.EncodeToString(h.Sum(nil))
	return sp, nil
}

// Commit implements Store: it syncs nothing more (Spool did) and renames the file into place.
func (l *Local) Commit(ctx context.Context, sp *Spool) (Blob, error) {
	if err := ctx.Err(); err != nil {
		return Blob{}, err
	}
	if sp.f == nil {
		return Blob{}, errors.New("blobs: spool already committed or closed")
	}
	if filepath.Dir(sp.f.Name()) != filepath.Join(l.dir, "tmp") {
		return Blob{}, errors.New("blobs: the spool belongs to another store")
	}
	b := Blob{Key: KeyFor(sp.SHA256), Size: sp.Size, SHA256: sp.SHA256}
	final, _ := l.path(b.Key)
	if err := os.MkdirAll(filepath.Dir(final), 0o700); err != nil {
		return Blob{}, fmt.Errorf("blobs: %w", err)
	}
	tmp := sp.f.Name()
	if err := sp.f.Close(); err != nil {
		return Blob{}, fmt.Errorf("blobs: %w", err)
	}
	sp.f = nil
	if st, err := os.Stat(final); err == nil && st.Size() == b.Size {
		// The same content is stored already: keep that file, untouched.
		_ = os.Remove(tmp)
		return b, nil
	}
	if err := os.Chmod(tmp, 0o400); err != nil {
		_ = os.Remove(tmp)
		return Blob{}, fmt.Errorf("blobs: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		_ = os.Remove(tmp)
		return Blob{}, fmt.Errorf("blobs: %w", err)
	}
	return b, nil
}

// Reader reads the spooled content from its start.
func (sp *Spool) Reader() (io.Reader, error) {
	if sp.f == nil {
		return nil, errors.New("blobs: spool already committed or closed")
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("blobs: %w", err)
	}
	return sp.f, nil
}

// Close removes the spool's file unless it was committed. It is safe to call more than once.
func (sp *Spool) Close() error {
	if sp.f == nil {
		return nil
	}
	name := sp.f.Name()
	_ = sp.f.Close()
	sp.f = nil
	return os.Remove(name)
}

// ctxReader stops a copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
