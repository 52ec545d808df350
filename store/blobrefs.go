package store

import (
	"context"

	"gorm.io/gorm"
)

// blobInUse reports whether any record other than except (an id, unique across tables by its
// prefix) still refers to the blob key. The blob store keeps one copy of equal bytes, so a
// document, an identity attempt and an analysis can share one: a retention purge deletes a
// blob only when nothing else names it. This is the one list of the columns that name blobs.
func blobInUse(ctx context.Context, db *gorm.DB, key, except string) (bool, error) {
	db = db.WithContext(ctx)
	checks := []*gorm.DB{
		db.Model(&Document{}).Where("(blob_key = ? OR text_key = ?) AND id <> ?", key, key, except),
		db.Model(&IdentityAttempt{}).Where("(front_key = ? OR back_key = ?) AND id <> ?", key, key, except),
		// An analysis keeps its files' keys in its JSON list of files.
		db.Model(&Analysis{}).Where("files LIKE ? AND id <> ?", "%\""+key+"\"%", except),
	}
	for _, q := range checks {
		var n int64
		if err := q.Limit(1).Count(&n).Error; err != nil || n > 0 {
			return n > 0, err
		}
	}
	return false, nil
}
