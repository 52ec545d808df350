package store

import (
	"context"
	"time"

	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ids"
)

// Organization owns every other resource.
type Organization struct {
	ID   string `gorm:"primaryKey;size:40"`
	Name string `gorm:"size:200;not null"`
	// Capabilities are the products the organisation may use, stored as auth.Capabilities'
	// String: "*" (every product, present and future) or a comma-separated list.
	Capabilities string `gorm:"size:500;not null;default:'*'"`
	CreatedAt    time.Time
}

// Caps is the organisation's set of products.
func (o *Organization) Caps() auth.Capabilities { return auth.ParseCapabilities(o.Capabilities) }

// User is a person of an organisation. Email is stored lowercased and is unique across
// organisations, because login finds the organisation by it.
type User struct {
	ID           string `gorm:"primaryKey;size:40"`
	OrgID        string `gorm:"size:40;not null;index;uniqueIndex:ux_users_org_email,priority:1"`
	Email        string `gorm:"size:320;not null;uniqueIndex:ux_users_org_email,priority:2;uniqueIndex:ux_users_email"`
	Name         string `gorm:"size:200"`
	Role         string `gorm:"size:40;not null"`
	PasswordHash string `gorm:"size:200"`
	Disabled     bool   `gorm:"not null;default:false"`
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// APIKey is a key of an organisation. Only the SHA-256 of the whole key is stored.
type APIKey struct {
	ID                string   `gorm:"primaryKey;size:40"`
	OrgID             string   `gorm:"size:40;not null;index"`
	Name              string   `gorm:"size:200;not null"`
	Environment       string   `gorm:"size:16;not null"`
	Hash              string   `gorm:"size:64;not null;uniqueIndex"`
	Last4             string   `gorm:"size:4;not null"`
	Scopes            []string `gorm:"serializer:json;not null"`
	ActAsUserID       string   `gorm:"size:40"`
	CallerServiceSlug string   `gorm:"size:100"`
	ExpiresAt         *time.Time
	RevokedAt         *time.Time
	// RevokesAt is set on a rotated key: the end of its grace window.
	RevokesAt   *time.Time
	RotatedToID string `gorm:"size:40"`
	LastUsedAt  *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Create stores a new organisation with a fresh id and every product.
func (s *Orgs) Create(ctx context.Context, name string) (*Organization, error) {
	o := &Organization{ID: ids.New(ids.Organization), Name: name, Capabilities: auth.AllCapabilities}
	if err := s.DB.WithContext(ctx).Create(o).Error; err != nil {
		return nil, err
	}
	return o, nil
}

// SetCapabilities replaces the organisation's products.
func (s *Orgs) SetCapabilities(ctx context.Context, id string, c auth.Capabilities) (*Organization, error) {
	res := s.DB.WithContext(ctx).Model(&Organization{}).Where("id = ?", id).Update("capabilities", c.String())
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected == 0 {
		return nil, ErrNotFound
	}
	return s.Get(ctx, id)
}

// Get loads an organisation.
func (s *Orgs) Get(ctx context.Context, id string) (*Organization, error) {
	var o Organization
	if err := s.DB.WithContext(ctx).Where("id = ?", id).Take(&o).Error; err != nil {
		return nil, NotFound(err)
	}
	return &o, nil
}

// Get loads a user of the organisation.
func (s *Users) Get(ctx context.Context, orgID, id string) (*User, error) {
	return takeInOrg[User](s.DB.WithContext(ctx), orgID, id)
}

// ByHash finds a key by the SHA-256 of its whole value.
func (s *Keys) ByHash(ctx context.Context, hash string) (*APIKey, error) {
	var k APIKey
	if err := s.DB.WithContext(ctx).Where("hash = ?", hash).Take(&k).Error; err != nil {
		return nil, NotFound(err)
	}
	return &k, nil
}
