package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Memory counts in this process only (config ratelimit.store=memory): for svc dev and tests. With
// several API processes each would allow the full limit, so deployments use Database.
type Memory struct {
	mu     sync.Mutex
	counts map[memoryKey]memoryCount
	swept  time.Time
}

type memoryKey struct {
	key   string
	start int64
}

type memoryCount struct {
	hits int64
	end  time.Time
}

// NewMemory makes an empty in-process store.
func NewMemory() *Memory { return &Memory{counts: map[memoryKey]memoryCount{}} }

// Hit implements Store.
func (m *Memory) Hit(_ context.Context, key string, start time.Time, window time.Duration) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	// Forget ended windows now and then, so the map stays as small as the set of active keys. A
	// long window starts earlier than a short one: an earlier start does not sweep again.
	if start.Sub(m.swept) >= time.Minute {
		for k, c := range m.counts {
			if !c.end.After(start) {
				delete(m.counts, k)
			}
		}
		m.swept = start
	}
	k := memoryKey{key: key, start: start.Unix()}
	c := m.counts[k]
	c.hits++
	c.end = start.Add(window)
	m.counts[k] = c
	return c.hits, nil
}
