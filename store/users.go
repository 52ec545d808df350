package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
)

// ErrEmailTaken is returned when another user, in any organisation, already has the email.
var ErrEmailTaken = errors.New("email already in use")

// NormalizeEmail is the stored form of an email: trimmed and lowercased.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// Create stores a new user; u.ID, OrgID, Email and Role must be set.
func (s *Users) Create(ctx context.Context, u *User) error {
	return createUser(s.DB.WithContext(ctx), u)
}

func createUser(db *gorm.DB, u *User) error {
	u.Email = NormalizeEmail(u.Email)
	if err := db.Create(u).Error; err != nil {
		if IsUniqueViolation(err) {
			return ErrEmailTaken
		}
		return err
	}
	return nil
}

// List pages through the organisation's users, newest first; f.Q matches email and name.
func (s *Users) List(ctx context.Context, orgID string, page Offset, f Filter) ([]User, int64, error) {
	return ListOffset[User](ctx, s.DB, page, "created_at DESC, id DESC",
		ForOrg(orgID), f.Scope(FilterColumns{Text: []string{"email", "name"}}))
}

// ByEmail finds a user by email across organisations (emails are globally unique), for login.
func (s *Users) ByEmail(ctx context.Context, email string) (*User, error) {
	var u User
	if err := s.DB.WithContext(ctx).Where("email = ?", NormalizeEmail(email)).Take(&u).Error; err != nil {
		return nil, NotFound(err)
	}
	return &u, nil
}

// UserChanges are the editable fields of a user; nil means unchanged.
type UserChanges struct {
	Name         *string
	Role         *string
	PasswordHash *string
	Disabled     *bool
	Now          time.Time
}

// Update applies changes to a user of the organisation. A new password or disabling the user
// also ends the user's dashboard sessions.
func (s *Users) Update(ctx context.Context, orgID, id string, ch UserChanges) (*User, error) {
	var out User
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		u, err := takeInOrg[User](tx, orgID, id)
		if err != nil {
			return err
		}
		out = *u
		if ch.Name != nil {
			out.Name = *ch.Name
		}
		if ch.Role != nil {
			out.Role = *ch.Role
		}
		if ch.PasswordHash != nil {
			out.PasswordHash = *ch.PasswordHash
		}
		if ch.Disabled != nil {
			out.Disabled = *ch.Disabled
		}
		out.UpdatedAt = ch.Now.UTC()
		if err := tx.Model(&out).Select("name", "role", "password_hash", "disabled", "updated_at").Updates(&out).Error; err != nil {
			return err
		}
		if ch.PasswordHash != nil || (ch.Disabled != nil && *ch.Disabled) {
			return revokeUserSessions(tx, orgID, id, ch.Now)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}
