package store

import "hash/fnv"

// advisoryKey is the PostgreSQL advisory lock key named name: 64 bits of its FNV-1a hash. Names
// start with what takes the lock ("svc-migrate:", "svc-velocity:"); two names sharing a key
// only wait for each other.
func advisoryKey(name string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return int64(h.Sum64())
}
