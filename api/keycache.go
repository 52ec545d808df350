package api

import (
	"errors"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/store"
)

// The key cache (security.keys) keeps recent key lookups (key record and bound user) for auth.key_cache_ttl, so an
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
type keyEntry struct {
	key *store.APIKey
	// user is the bound user (nil when the key is unbound or its user no longer exists).
	user *store.User
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
	key, err := s.Store.Keys.ByHash(c.Request.Context(), hash)
	if err != nil {
		return keyEntry{}, err
	}
	e := keyEntry{key: key}
	if key.ActAsUserID != "" {
		u, err := s.Store.Users.Get(c.Request.Context(), key.OrgID, key.ActAsUserID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return keyEntry{}, err
		}
		e.user = u
	}
	if key.LastUsedAt == nil || now.Sub(*key.LastUsedAt) >= lastUsedEvery {
		if err := s.Store.Keys.Touch(c.Request.Context(), key.ID, now); err != nil {
			Logger(c).Warn("record key use", "apiKeyId", key.ID, "error", err)
		}
	}
	s.sec.keys.put(hash, e, now)
	return e, nil
}
