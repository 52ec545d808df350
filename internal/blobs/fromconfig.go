package blobs

import (
	"context"
	"path/filepath"

	"github.com/svcplatform/svc/config"
)

// FromConfig opens the store the configuration names (blobs.backend): every process that
// reads or writes uploads opens it here, so the API and the workers always agree.
func FromConfig(ctx context.Context, c *config.Config) (Store, error) {
	if c.Blobs.Backend != "s3" {
		return NewLocal(c.BlobDir())
	}
	return NewS3(ctx, S3Options{
		Endpoint:  c.Blobs.S3Endpoint,
		TLS:       c.Blobs.S3TLS,
		Region:    c.Blobs.S3Region,
		Bucket:    c.Blobs.S3Bucket,
		AccessKey: c.Blobs.S3AccessKey,
		SecretKey: c.Blobs.S3SecretKey,
		SpoolDir:  filepath.Join(c.DataDir, "spool"),
	})
}
