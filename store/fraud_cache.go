package store

import (
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// fraudCache keeps, per process, what a decision reads before its transaction and what never
// changes once written: device sessions, the first sightings of customers and devices and the
// ids of velocity entities. Every API process may keep its own copy; none can be stale. It
// spares the fast path a query or two per decision.
type fraudCache struct {
	sessions  *lru.Cache[orgScoped, *FraudDeviceSession]
	firstSeen *lru.Cache[orgSubject, time.Time]
	entities  *lru.Cache[velocityEntity, int64]
}

// orgScoped is an id within an organisation.
type orgScoped struct{ OrgID, ID string }

// orgSubject is a subject within an organisation.
type orgSubject struct {
	OrgID string
	subjectKey
}

func newFraudCache() *fraudCache {
	sessions, _ := lru.New[orgScoped, *FraudDeviceSession](16 << 10)
	firstSeen, _ := lru.New[orgSubject, time.Time](64 << 10)
	entities, _ := lru.New[velocityEntity, int64](128 << 10)
	return &fraudCache{sessions: sessions, firstSeen: firstSeen, entities: entities}
}

// known splits subjects into those whose first sighting the cache holds (returned) and the rest.
func (c *fraudCache) known(orgID string, subjects []subjectKey) (map[subjectKey]time.Time, []subjectKey) {
	out := make(map[subjectKey]time.Time, len(subjects))
	var rest []subjectKey
	for _, k := range subjects {
		if at, ok := c.firstSeen.Get(orgSubject{orgID, k}); ok {
			out[k] = at
		} else {
			rest = append(rest, k)
		}
	}
	return out, rest
}

// remember keeps first sightings read or committed.
func (c *fraudCache) remember(orgID string, first map[subjectKey]time.Time) {
	for k, at := range first {
		c.firstSeen.Add(orgSubject{orgID, k}, at)
	}
}
