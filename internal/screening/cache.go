package screening

import "sync"

// maxCachedIndexes bounds the list versions an IndexCache keeps indexed in memory.
const maxCachedIndexes = 256

// IndexCache keeps the index of each list version screened recently, for the API and the
// monitoring activities alike: a version never changes, so its key (list id and version)
// never goes stale.
type IndexCache struct {
	mu sync.Mutex
	m  map[string]*Index
}

// NewIndexCache returns an empty cache.
func NewIndexCache() *IndexCache { return &IndexCache{m: map[string]*Index{}} }

// Get returns the index under key, building it once with build.
func (c *IndexCache) Get(key string, build func() (*Index, error)) (*Index, error) {
	c.mu.Lock()
	ix, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return ix, nil
	}
	ix, err := build()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= maxCachedIndexes {
		clear(c.m)
	}
	c.m[key] = ix
	c.mu.Unlock()
	return ix, nil
}
