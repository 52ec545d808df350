package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/secrets"
)

// ServiceKey is the platform's record of the service principal key (SPEC 5.6) it issued to an
// organisation for one calling service: the api_keys row (hash only, like every key) and the
// key's value sealed with the platform's secret box, bound to that key's id, so that every
// worker can present it and nothing stores it in clear.
type ServiceKey struct {
	OrgID             string `gorm:"primaryKey;size:40"`
	CallerServiceSlug string `gorm:"primaryKey;size:100"`
	APIKeyID          string `gorm:"size:40;not null"`
	SealedSecret      string `gorm:"size:500;not null"`
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// ServiceKeys is the repository of the platform's service principal keys.
type ServiceKeys struct{ *handle }

// ErrNotConnected is returned for an organisation that lacks one of a connection's products.
var ErrNotConnected = errors.New("service not connected: the organisation lacks one of the products")

// ServiceKeyRequest asks for the service key of one connection in one organisation.
type ServiceKeyRequest struct {
	OrgID       string
	Connection  auth.ServiceConnection
	Environment string
	Now         time.Time
}

// sealContext binds a sealed service key to its api_keys row.
func sealContext(apiKeyID string) string { return "service-key:" + apiKeyID }

// Secret returns the value of the organisation's service key for the connection, issuing it
// on first need and again whenever the key in use stopped being active (revoked, rotated past
// its grace, expired) or no longer carries exactly the connection's scopes. An organisation
// without both products gets ErrNotConnected, and its service key, if any, is revoked: a
// removed product disconnects the services. Concurrent callers (several workers) end with one
// key: the record is replaced only where it still names the key the caller saw.
func (s *ServiceKeys) Secret(ctx context.Context, box *secrets.Box, r ServiceKeyRequest) (string, error) {
	if box == nil {
		return "", errors.New("service keys: no secret box (config secrets.key)")
	}
	slug := r.Connection.Caller
	for try := 0; try < 3; try++ {
		org, err := (&Orgs{s.handle}).Get(ctx, r.OrgID)
		if err != nil {
			return "", err
		}
		var row ServiceKey
		err = s.DB.WithContext(ctx).Where("org_id = ? AND caller_service_slug = ?", r.OrgID, slug).Take(&row).Error
		found := err == nil
		if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
			return "", err
		}
		if !r.Connection.Connected(org.Caps()) {
			if _, err := s.RevokeDisconnected(ctx, r.OrgID, org.Caps(), r.Now); err != nil {
				return "", err
			}
			return "", ErrNotConnected
		}
		if found {
			k, err := (&Keys{s.handle}).Get(ctx, r.OrgID, row.APIKeyID)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return "", err
			}
			if err == nil && k.Status(r.Now) == KeyActive && slices.Equal(k.Scopes, r.Connection.Scopes) && k.Environment == r.Environment {
				plain, err := box.Open(row.SealedSecret, sealContext(k.ID))
				if err != nil {
					return "", fmt.Errorf("service keys: %w", err)
				}
				return string(plain), nil
			}
		}
		secret, err := s.issue(ctx, box, r, row, found)
		if errors.Is(err, errServiceKeyRaced) {
			continue // another worker replaced it first: use that one
		}
		return secret, err
	}
	return "", errors.New("service keys: the key kept changing under us")
}

// AuditServiceKeyIssued is the audit log's action when the platform issues a service key
// (the resource is the key; the calling service is the key's).
const AuditServiceKeyIssued = "platform: issue service key"

var errServiceKeyRaced = errors.New("service key replaced concurrently")

// issue creates a new key for the connection and records it sealed, in one transaction that
// also revokes the key it replaces (a stale key must not keep working beside the new one).
func (s *ServiceKeys) issue(ctx context.Context, box *secrets.Box, r ServiceKeyRequest, old ServiceKey, replace bool) (string, error) {
	k, secret := newAPIKey(NewAPIKey{
		OrgID: r.OrgID, Name: "service: " + r.Connection.Caller + " → " + r.Connection.Callee, Environment: r.Environment,
		Scopes: r.Connection.Scopes, CallerServiceSlug: r.Connection.Caller, Now: r.Now,
	})
	sealed, err := box.Seal([]byte(secret), sealContext(k.ID))
	if err != nil {
		return "", err
	}
	now := r.Now.UTC()
	err = s.Tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Create(k).Error; err != nil {
			return err
		}
		// The organisation's audit log shows every key that came to act in it, this one too.
		if err := tx.Create(&AuditLog{ID: ids.NewAt(ids.Audit, now), OrgID: r.OrgID, Environment: r.Environment,
			CallerServiceSlug: r.Connection.Caller, Action: AuditServiceKeyIssued, ResourceID: k.ID,
			Status: 201, CreatedAt: now}).Error; err != nil {
			return err
		}
		if !replace {
			err := tx.Create(&ServiceKey{OrgID: r.OrgID, CallerServiceSlug: r.Connection.Caller, APIKeyID: k.ID,
				SealedSecret: sealed, CreatedAt: now, UpdatedAt: now}).Error
			if IsUniqueViolation(err) {
				return errServiceKeyRaced
			}
			return err
		}
		res := tx.Model(&ServiceKey{}).
			Where("org_id = ? AND caller_service_slug = ? AND api_key_id = ?", r.OrgID, r.Connection.Caller, old.APIKeyID).
			Updates(map[string]any{"api_key_id": k.ID, "sealed_secret": sealed, "updated_at": now})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return errServiceKeyRaced
		}
		return tx.Model(&APIKey{}).Where("org_id = ? AND id = ? AND revoked_at IS NULL", r.OrgID, old.APIKeyID).
			Updates(map[string]any{"revoked_at": now, "updated_at": now}).Error
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}

// RevokeDisconnected revokes the organisation's service keys whose connection its products no
// longer allow (one of the two products removed, SPEC 7.3), and returns how many it revoked.
// PUT /api/organization/capabilities calls it, so a removed product stops the calls at once.
func (s *ServiceKeys) RevokeDisconnected(ctx context.Context, orgID string, caps auth.Capabilities, now time.Time) (int, error) {
	var rows []ServiceKey
	if err := s.DB.WithContext(ctx).Where("org_id = ?", orgID).Find(&rows).Error; err != nil {
		return 0, err
	}
	now = now.UTC()
	n := 0
	for _, row := range rows {
		if c, ok := auth.ServiceConnectionOf(row.CallerServiceSlug); ok && c.Connected(caps) {
			continue
		}
		res := s.DB.WithContext(ctx).Model(&APIKey{}).Where("org_id = ? AND id = ? AND revoked_at IS NULL", orgID, row.APIKeyID).
			Updates(map[string]any{"revoked_at": now, "updated_at": now})
		if res.Error != nil {
			return n, res.Error
		}
		n += int(res.RowsAffected)
	}
	return n, nil
}
