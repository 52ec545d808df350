package store

import (
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/svcplatform/svc/internal/events"
)

// announceListVersion writes screening.list_updated for version v of list l in tx, the
// transaction that stores the version (PublishEventIn): to l's organisation, or to every
// organisation for a platform list. A version is never in service without its event.
func announceListVersion(tx *gorm.DB, l *ScreeningList, v *ScreeningListVersion) ([]*Published, error) {
	orgs := []string{l.OrgID}
	if l.OrgID == PlatformOrg {
		orgs = nil
		if err := tx.Model(&Organization{}).Order("id").Pluck("id", &orgs).Error; err != nil {
			return nil, err
		}
	}
	at := v.CreatedAt.UTC().Truncate(time.Millisecond)
	key := fmt.Sprintf("%s@%d", l.ID, v.Version)
	data := map[string]any{"listId": l.ID, "version": v.Version, "added": len(v.Delta.Added), "changed": len(v.Delta.Changed), "removed": len(v.Delta.Removed)}
	var out []*Published
	for _, org := range orgs {
		// One event per organisation: the id names the organisation too.
		env, err := events.NewEnvelope(events.DeriveID(at, key, events.ScreeningListUpdated, org), events.ScreeningListUpdated, org, at, data)
		if err != nil {
			return nil, err
		}
		p, err := PublishEventIn(tx, env)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
