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

// sessionWithUser is a session row joined with its user's, the user's columns prefixed u_.
type sessionWithUser struct {
	Session
	User User `gorm:"embedded;embeddedPrefix:u_"`
}

// ByTokenHashWithUser finds a session by the SHA-256 of its cookie token together with its
// user, in one query: every dashboard request makes it (ErrNotFound when either is missing).
func (s *Sessions) ByTokenHashWithUser(ctx context.Context, hash string) (*Session, *User, error) {
	var row sessionWithUser
	res := s.DB.WithContext(ctx).Table("sessions").
		Select(`sessions.*, users.id AS u_id, users.org_id AS u_org_id, users.email AS u_email, users.name AS u_name,
			users.role AS u_role, users.password_hash AS u_password_hash, users.disabled AS u_disabled,
			users.created_at AS u_created_at, users.updated_at AS u_updated_at`).
		Joins("JOIN users ON users.id = sessions.user_id AND users.org_id = sessions.org_id").
		Where("sessions.token_hash = ?", hash).Limit(1).Scan(&row)
	if res.Error != nil {
		return nil, nil, res.Error
	}
	if res.RowsAffected == 0 {
		return nil, nil, ErrNotFound
	}
	return &row.Session, &row.User, nil
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
