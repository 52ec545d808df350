package api

import (
	"errors"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/store"
)

// keyCache keeps recent key lookups (key record and bound user) for auth.key_cache_ttl, so an
// authenticated request does not need two database reads.
//
// Why revocation stays correct:
//   - Expiry and the end of a rotation's grace window are times stored on the key; they are
//     checked against the clock on every request, cached or not, so they take effect to the
//     second.
//   - Revoking, rotating or editing a key, and editing or disabling a user, through this process
//     clears the cache, so they take effect on the next request here.
//   - The same changes made through another API process take effect here within the TTL (5 s by
//     default, at most 1 minute; 0 disables the cache). This is the documented bound.
//
// Unknown keys are not cached, so a key is usable as soon as it is created.
type keyCache struct {
	ttl     time.Duration
	mu      sync.RWMutex
	entries map[string]keyEntry
}

type keyEntry struct {
	key *store.APIKey
	// user is the bound user (nil when the key is unbound or its user no longer exists).
	user *store.User
	at   time.Time
}

// maxCachedKeys bounds the cache; when full it starts over.
const maxCachedKeys = 10_000

func (kc *keyCache) get(hash string, now time.Time) (keyEntry, bool) {
	if kc.ttl <= 0 {
		return keyEntry{}, false
	}
	kc.mu.RLock()
	e, ok := kc.entries[hash]
	kc.mu.RUnlock()
	if !ok || now.Sub(e.at) >= kc.ttl || now.Before(e.at) {
		return keyEntry{}, false
	}
	return e, true
}

func (kc *keyCache) put(hash string, e keyEntry) {
	if kc.ttl <= 0 {
		return
	}
	kc.mu.Lock()
	if len(kc.entries) >= maxCachedKeys {
		kc.entries = map[string]keyEntry{}
	}
	kc.entries[hash] = e
	kc.mu.Unlock()
}

// clear forgets every cached lookup; handlers call it after changing keys or users.
func (kc *keyCache) clear() {
	kc.mu.Lock()
	kc.entries = map[string]keyEntry{}
	kc.mu.Unlock()
}

// lastUsedEvery is how stale a key's lastUsedAt may get before a lookup refreshes it.
const lastUsedEvery = time.Minute

// lookupKey finds the key with hash and its bound user, through the cache. It returns
// store.ErrNotFound for an unknown key.
func (s *Server) lookupKey(c *gin.Context, hash string) (keyEntry, error) {
	now := s.Now()
	if e, ok := s.sec.keys.get(hash, now); ok {
		return e, nil
	}
	key, err := s.Store.APIKeyByHash(c.Request.Context(), hash)
	if err != nil {
		return keyEntry{}, err
	}
	e := keyEntry{key: key, at: now}
	if key.ActAsUserID != "" {
		u, err := s.Store.GetUser(c.Request.Context(), key.OrgID, key.ActAsUserID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return keyEntry{}, err
		}
		e.user = u
	}
	if key.LastUsedAt == nil || now.Sub(*key.LastUsedAt) >= lastUsedEvery {
		if err := s.Store.TouchAPIKey(c.Request.Context(), key.ID, now); err != nil {
			Logger(c).Warn("record key use", "apiKeyId", key.ID, "error", err)
		}
	}
	s.sec.keys.put(hash, e)
	return e, nil
}
