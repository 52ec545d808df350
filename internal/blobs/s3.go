package blobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Options locates a bucket of an S3-compatible service (AWS S3, MinIO, Ceph, R2, ...).
type S3Options struct {
	// Endpoint is host[:port], without a scheme.
	Endpoint string
	// TLS selects https; plain http is for a service on loopback or a private network.
	TLS       bool
	Region    string
	Bucket    string
	AccessKey string
	// SecretKey is a secret: never logged.
	SecretKey string
	// SpoolDir holds uploads while they are hashed, before they are sent (the OS temporary
	// directory when empty).
	SpoolDir string
	// Transport replaces the HTTP transport (tests); nil means the library's default.
	Transport http.RoundTripper
}

// S3 is a Store in a bucket. Objects are written once under their content key and never
// rewritten, so any number of API and worker processes may share the bucket.
type S3 struct {
	client   *minio.Client
	bucket   string
	spoolDir string
}

// NewS3 connects to the bucket and checks that it exists; it creates nothing, so a typo in
// the bucket's name fails here, at start, rather than at the first upload.
func NewS3(ctx context.Context, o S3Options) (*S3, error) {
	if o.Endpoint == "" || o.Bucket == "" {
		return nil, errors.New("blobs: s3 needs an endpoint and a bucket")
	}
	client, err := minio.New(o.Endpoint, &minio.Options{
		Creds:     credentials.NewStaticV4(o.AccessKey, o.SecretKey, ""),
		Secure:    o.TLS,
		Region:    o.Region,
		Transport: o.Transport,
	})
	if err != nil {
		return nil, fmt.Errorf("blobs: s3 %s: %w", o.Endpoint, err)
	}
	ok, err := client.BucketExists(ctx, o.Bucket)
	if err != nil {
		return nil, fmt.Errorf("blobs: s3 %s: bucket %s: %w", o.Endpoint, o.Bucket, err)
	}
	if !ok {
		return nil, fmt.Errorf("blobs: s3 %s: bucket %s does not exist", o.Endpoint, o.Bucket)
	}
	dir := o.SpoolDir
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("blobs: %w", err)
	}
	return &S3{client: client, bucket: o.Bucket, spoolDir: dir}, nil
}

// Spool implements Store: the content is hashed into a local temporary file first, because
// its key (the digest) is known only once all of it has been read.
func (s *S3) Spool(ctx context.Context, r io.Reader, limit int64) (*Spool, error) {
	return spoolTo(ctx, s.spoolDir, r, limit)
}

// Commit implements Store: it uploads the spool under its content key unless an object of
// that key and size is there already, then removes the spool.
func (s *S3) Commit(ctx context.Context, sp *Spool) (Blob, error) {
	if err := ctx.Err(); err != nil {
		return Blob{}, err
	}
	if sp.f == nil {
		return Blob{}, errors.New("blobs: spool already committed or closed")
	}
	defer sp.Close()
	b := Blob{Key: KeyFor(sp.SHA256), Size: sp.Size, SHA256: sp.SHA256}
	if info, err := s.client.StatObject(ctx, s.bucket, b.Key, minio.StatObjectOptions{}); err == nil && info.Size == b.Size {
		return b, nil
	} else if err != nil && !isNoSuchKey(err) {
		return Blob{}, fmt.Errorf("blobs: s3 stat %s: %w", b.Key, err)
	}
	r, err := sp.Reader()
	if err != nil {
		return Blob{}, err
	}
	_, err = s.client.PutObject(ctx, s.bucket, b.Key, r, b.Size, minio.PutObjectOptions{
		ContentType:  "application/octet-stream",
		UserMetadata: map[string]string{"Sha256": b.SHA256},
		// An empty body sent with a streaming signature goes without Content-Length, which S3
		// refuses (MissingContentLength); an empty blob is sent unchunked.
		DisableContentSha256: b.Size == 0,
	})
	if err != nil {
		return Blob{}, fmt.Errorf("blobs: s3 put %s: %w", b.Key, err)
	}
	return b, nil
}

// Open implements Store. It asks for the object's metadata first, so that a missing object is
// ErrNotFound here rather than an error at the first Read.
func (s *S3) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if !validKey(key) {
		return nil, fmt.Errorf("%w: malformed key %q", ErrNotFound, key)
	}
	obj, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("blobs: s3 get %s: %w", key, err)
	}
	if _, err := obj.Stat(); err != nil {
		_ = obj.Close()
		if isNoSuchKey(err) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
		}
		return nil, fmt.Errorf("blobs: s3 get %s: %w", key, err)
	}
	return obj, nil
}

// Delete implements Store; S3 answers success for a key that is not there.
func (s *S3) Delete(ctx context.Context, key string) error {
	if !validKey(key) {
		return fmt.Errorf("%w: malformed key %q", ErrNotFound, key)
	}
	if err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil && !isNoSuchKey(err) {
		return fmt.Errorf("blobs: s3 delete %s: %w", key, err)
	}
	return nil
}

func isNoSuchKey(err error) bool {
	code := minio.ToErrorResponse(err).Code
	return code == "NoSuchKey" || code == "NotFound"
}
