package store

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// Session is a dashboard login. The cookie carries a random token; only its SHA-256 is stored.
type Session struct {
	ID        string `gorm:"primaryKey;size:40"`
	OrgID     string `gorm:"size:40;not null;index"`
	UserID    string `gorm:"size:40;not null;index"`
	TokenHash string `gorm:"size:64;not null;uniqueIndex"`
	// CSRFToken must accompany every cookie-authenticated write (header X-CSRF-Token). It is not a
	// credential by itself: without the HttpOnly session cookie it grants nothing.
	CSRFToken string `gorm:"size:64;not null"`
	ExpiresAt time.Time
	RevokedAt *time.Time
	CreatedAt time.Time
}

// Active reports whether the session may still be used at now.
func (s *Session) Active(now time.Time) bool {
	return s.RevokedAt == nil && now.Before(s.ExpiresAt)
}

// Create stores a new session.
func (s *Sessions) Create(ctx context.Context, sess *Session) error {
	sess.ExpiresAt = sess.ExpiresAt.UTC()
	sess.CreatedAt = sess.CreatedAt.UTC()
	return s.DB.WithContext(ctx).Create(sess).Error
}

// ByTokenHash finds a session by the SHA-256 of its cookie token.
func (s *Sessions) ByTokenHash(ctx context.Context, hash string) (*Session, error) {
	var sess Session
	if err := s.DB.WithContext(ctx).Where("token_hash = ?", hash).Take(&sess).Error; err != nil {
		return nil, NotFound(err)
	}
	return &sess, nil
}

// Revoke ends one session of the organisation.
func (s *Sessions) Revoke(ctx context.Context, orgID, id string, now time.Time) error {
	return s.DB.WithContext(ctx).Model(&Session{}).
		Where("org_id = ? AND id = ? AND revoked_at IS NULL", orgID, id).
		Update("revoked_at", now.UTC()).Error
}

func revokeUserSessions(tx *gorm.DB, orgID, userID string, now time.Time) error {
	return tx.Model(&Session{}).
		Where("org_id = ? AND user_id = ? AND revoked_at IS NULL", orgID, userID).
		Update("revoked_at", now.UTC()).Error
}
