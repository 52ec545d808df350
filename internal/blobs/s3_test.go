package blobs_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/blobs"
)

// newS3 starts an S3-compatible server inside the test process with one empty bucket, and
// returns a store on it and the store's spool directory.
func newS3(t *testing.T) (*blobs.S3, string) {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("uploads"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	dir := filepath.Join(t.TempDir(), "s3", "spool")
	s, err := blobs.NewS3(context.Background(), blobs.S3Options{
		Endpoint: u.Host, Bucket: "uploads", Region: "us-east-1",
		AccessKey: "test", SecretKey: "test-secret", SpoolDir: dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func TestNewS3RefusesAMissingBucket(t *testing.T) {
	srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	_, err := blobs.NewS3(context.Background(), blobs.S3Options{Endpoint: u.Host, Bucket: "absent", AccessKey: "a", SecretKey: "b"})
	if err == nil || !strings.Contains(err.Error(), "bucket absent does not exist") {
		t.Fatalf("NewS3 on a missing bucket: %v", err)
	}
	if _, err := blobs.NewS3(context.Background(), blobs.S3Options{Bucket: "x"}); err == nil {
		t.Fatal("NewS3 without an endpoint succeeded")
	}
}

// TestFromConfigSharesOneBucket: two processes configured with blobs.backend=s3 (an API that
// stores an upload, a worker that reads it) see the same blobs without a shared directory.
func TestFromConfigSharesOneBucket(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("shared"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	open := func() blobs.Store {
		c := &config.Config{DataDir: t.TempDir(), Blobs: config.BlobsConfig{Backend: "s3", S3Endpoint: u.Host,
			S3Bucket: "shared", S3Region: "us-east-1", S3AccessKey: "k", S3SecretKey: "s"}}
		s, err := blobs.FromConfig(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	api, worker := open(), open()
	b, err := blobs.Put(context.Background(), api, strings.NewReader("%PDF-1.7 statement"), 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	got, err := blobs.ReadAll(context.Background(), worker, b.Key, 1<<10)
	if err != nil || string(got) != "%PDF-1.7 statement" {
		t.Fatalf("the worker read %q, %v", got, err)
	}
	local, err := blobs.FromConfig(context.Background(), &config.Config{DataDir: t.TempDir(), Blobs: config.BlobsConfig{Backend: "local"}})
	if _, ok := local.(*blobs.Local); err != nil || !ok {
		t.Fatalf("backend local gave %T, %v", local, err)
	}
}
