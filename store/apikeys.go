package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ids"
)

// Key statuses, derived from the key's timestamps at a moment (APIKey.Status).
const (
	KeyActive  = "active"
	KeyRotated = "rotated" // in the grace window after a rotation; refused from RevokesAt on
	KeyRevoked = "revoked"
	KeyExpired = "expired"
)

// ErrKeyNotActive is returned when rotating a key that is already rotated, revoked or expired.
var ErrKeyNotActive = errors.New("key is not active")

// Status is the key's status at now.
func (k *APIKey) Status(now time.Time) string {
	switch {
	case k.RevokedAt != nil && !now.Before(*k.RevokedAt), k.RevokesAt != nil && !now.Before(*k.RevokesAt):
		return KeyRevoked
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		return KeyExpired
	case k.RevokesAt != nil:
		return KeyRotated
	}
	return KeyActive
}

// NewAPIKey describes a key to issue.
type NewAPIKey struct {
	OrgID       string
	Name        string
	Environment string
	Scopes      []string
	ActAsUserID string
	// CallerServiceSlug makes a service principal key; only the platform (svc bootstrap) sets it.
	CallerServiceSlug string
	ExpiresAt         *time.Time
	Now               time.Time
}

// newAPIKey builds the record and the one-time secret of a new key.
func newAPIKey(n NewAPIKey) (*APIKey, string) {
	secret := auth.NewKey(n.Environment)
	now := n.Now.UTC()
	k := &APIKey{
		ID:                ids.NewAt(ids.APIKey, now),
		OrgID:             n.OrgID,
		Name:              n.Name,
		Environment:       n.Environment,
		Hash:              auth.HashKey(secret),
		Last4:             auth.Last4(secret),
		Scopes:            n.Scopes,
		ActAsUserID:       n.ActAsUserID,
		CallerServiceSlug: n.CallerServiceSlug,
		ExpiresAt:         utcPtr(n.ExpiresAt),
		CreatedAt:         now,
		UpdatedAt:         now,
	}
	return k, secret
}

// Issue stores a new key and returns it with its value, which is never stored and cannot be
// shown again.
func (s *Keys) Issue(ctx context.Context, n NewAPIKey) (*APIKey, string, error) {
	k, secret := newAPIKey(n)
	if err := s.DB.WithContext(ctx).Create(k).Error; err != nil {
		return nil, "", err
	}
	return k, secret, nil
}

// Get loads a key of the organisation.
func (s *Keys) Get(ctx context.Context, orgID, id string) (*APIKey, error) {
	return takeInOrg[APIKey](s.DB.WithContext(ctx), orgID, id)
}

// List pages through the organisation's keys, newest first; f.Q matches the name.
func (s *Keys) List(ctx context.Context, orgID string, page Offset, f Filter) ([]APIKey, int64, error) {
	return ListOffset[APIKey](ctx, s.DB, page, "created_at DESC, id DESC",
		ForOrg(orgID), f.Scope(FilterColumns{Text: []string{"name"}}))
}

// APIKeyChanges are the editable fields of a key; nil means unchanged. ActAsUserID "" unbinds.
type APIKeyChanges struct {
	Name        *string
	Scopes      []string
	ActAsUserID *string
	Now         time.Time
}

// Update applies changes to a key of the organisation and returns the updated key.
func (s *Keys) Update(ctx context.Context, orgID, id string, ch APIKeyChanges) (*APIKey, error) {
	var out *APIKey
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		k, err := takeInOrg[APIKey](tx, orgID, id)
		if err != nil {
			return err
		}
		if ch.Name != nil {
			k.Name = *ch.Name
		}
		if ch.Scopes != nil {
			k.Scopes = ch.Scopes
		}
		if ch.ActAsUserID != nil {
			k.ActAsUserID = *ch.ActAsUserID
		}
		k.UpdatedAt = ch.Now.UTC()
		if err := tx.Model(k).Select("name", "scopes", "act_as_user_id", "updated_at").Updates(k).Error; err != nil {
			return err
		}
		out = k
		return nil
	})
	return out, err
}

// Rotate issues a successor of an active key (same name, scopes, bound user, expiry) and
// schedules the old key's revocation at now+grace: authentication refuses it from then on, so no
// job is needed. It returns the new key, its value, and the old key as updated.
func (s *Keys) Rotate(ctx context.Context, orgID, id string, now time.Time, grace time.Duration) (*APIKey, string, *APIKey, error) {
	now = now.UTC()
	var (
		next   *APIKey
		secret string
		old    APIKey
	)
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		k, err := takeInOrg[APIKey](tx, orgID, id)
		if err != nil {
			return err
		}
		old = *k
		if old.Status(now) != KeyActive {
			return ErrKeyNotActive
		}
		next, secret = newAPIKey(NewAPIKey{
			OrgID: old.OrgID, Name: old.Name, Environment: old.Environment, Scopes: old.Scopes,
			ActAsUserID: old.ActAsUserID, CallerServiceSlug: old.CallerServiceSlug, ExpiresAt: old.ExpiresAt, Now: now,
		})
		until := now.Add(grace)
		// The conditional update makes two concurrent rotations of one key yield one successor.
		res := tx.Model(&APIKey{}).
			Where("org_id = ? AND id = ? AND revokes_at IS NULL AND revoked_at IS NULL", orgID, id).
			Updates(map[string]any{"revokes_at": until, "rotated_to_id": next.ID, "updated_at": now})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return ErrKeyNotActive
		}
		old.RevokesAt, old.RotatedToID, old.UpdatedAt = &until, next.ID, now
		return tx.Create(next).Error
	})
	if err != nil {
		return nil, "", nil, err
	}
	return next, secret, &old, nil
}

// Revoke revokes a key of the organisation now; revoking a revoked key changes nothing.
func (s *Keys) Revoke(ctx context.Context, orgID, id string, now time.Time) (*APIKey, error) {
	now = now.UTC()
	res := s.DB.WithContext(ctx).Model(&APIKey{}).
		Where("org_id = ? AND id = ? AND revoked_at IS NULL", orgID, id).
		Updates(map[string]any{"revoked_at": now, "updated_at": now})
	if res.Error != nil {
		return nil, res.Error
	}
	return s.Get(ctx, orgID, id)
}

// Touch records that a key was used at now.
func (s *Keys) Touch(ctx context.Context, id string, now time.Time) error {
	return s.DB.WithContext(ctx).Model(&APIKey{}).Where("id = ?", id).
		UpdateColumn("last_used_at", now.UTC()).Error
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
