package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/customers"
	"github.com/svcplatform/svc/internal/screening"
)

// ErrListChangedMeanwhile is returned when another writer stored a version of the list
// between the read of its version in service and the write of the next.
var ErrListChangedMeanwhile = errors.New("list changed meanwhile; try again")

// NewVersion stores entities as the next version of list l, with its delta to the version
// in service, unless the content is the same: then only the list's last refresh moves and
// changed is false. The write is conditional on the version read, in one transaction, so
// two writers never both make version n+1. l is updated to what was stored. A new version is
// stored with its screening.list_updated events (returned, their first attempts to make).
func (s *Screening) NewVersion(ctx context.Context, l *ScreeningList, entities []screening.Entity, now time.Time) (v *ScreeningListVersion, changed bool, published []*Published, err error) {
	hash := screening.Hash(entities)
	now = now.UTC()
	err = s.Tx(ctx, func(tx *gorm.DB) error {
		published = nil
		var cur ScreeningListVersion
		if err := tx.Where("org_id = ? AND list_id = ? AND version = ?", l.OrgID, l.ID, l.Version).Take(&cur).Error; err != nil {
			return NotFound(err)
		}
		if cur.ContentHash == hash {
			l.RefreshedAt = now
			return tx.Model(&ScreeningList{}).Where("id = ?", l.ID).Update("refreshed_at", now).Error
		}
		next := &ScreeningListVersion{ListID: l.ID, Version: l.Version + 1, OrgID: l.OrgID, ContentHash: hash, Entities: entities,
			Delta: screening.Diff(cur.Entities, entities), CreatedAt: now}
		res := tx.Model(&ScreeningList{}).Where("id = ? AND version = ?", l.ID, l.Version).
			Updates(map[string]any{"version": next.Version, "content_hash": hash, "entity_count": len(entities), "refreshed_at": now})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrListChangedMeanwhile
		}
		if err := tx.Create(next).Error; err != nil {
			return err
		}
		l.Version, l.ContentHash, l.EntityCount, l.RefreshedAt = next.Version, hash, len(entities), now
		v, changed = next, true
		var err error
		published, err = announceListVersion(tx, l, next)
		return err
	})
	return v, changed, published, err
}

// SourcedList loads the platform list kept from the configured source name, ErrNotFound
// before its first refresh.
func (s *Screening) SourcedList(ctx context.Context, name string) (*ScreeningList, error) {
	var l ScreeningList
	err := s.DB.WithContext(ctx).Where("org_id = ? AND name = ? AND kind <> ?", PlatformOrg, name, screening.KindOrganisation).
		Order("created_at").Take(&l).Error
	if err != nil {
		return nil, NotFound(err)
	}
	return &l, nil
}

// screeningOrgs are the organisations with the screening product (capabilities "*" or a
// list naming it): only their customers are monitored.
const screeningOrgs = "org_id IN (SELECT id FROM organizations WHERE capabilities = '*' OR ',' || capabilities || ',' LIKE '%,screening,%')"

// MonitoredCustomers returns the next customers with monitoring on after the id after, in
// id order: of one organisation, or of every organisation with the screening product when
// orgID is PlatformOrg (a platform list changed).
func (s *Screening) MonitoredCustomers(ctx context.Context, orgID, after string, limit int) ([]Customer, error) {
	q := s.DB.WithContext(ctx).Where("monitoring = ? AND id > ? AND status = ?", true, after, string(customers.StatusActive))
	if orgID != PlatformOrg {
		q = q.Where("org_id = ?", orgID)
	} else {
		q = q.Where(screeningOrgs)
	}
	var rows []Customer
	err := q.Order("id").Limit(limit).Find(&rows).Error
	return rows, err
}

// CountMonitored counts the customers MonitoredCustomers walks through.
func (s *Screening) CountMonitored(ctx context.Context, orgID string) (int64, error) {
	q := s.DB.WithContext(ctx).Model(&Customer{}).Where("monitoring = ? AND status = ?", true, string(customers.StatusActive))
	if orgID != PlatformOrg {
		q = q.Where("org_id = ?", orgID)
	} else {
		q = q.Where(screeningOrgs)
	}
	var n int64
	err := q.Count(&n).Error
	return n, err
}
