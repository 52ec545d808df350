package screening

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
)

// EntityHash is the content hash of one entity: it changes when anything screened changes.
func EntityHash(e *Entity) string {
	b, _ := json.Marshal(e) // Entity has only marshalable fields
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Hash is the content hash of a list version: independent of the entities' order.
func Hash(entities []Entity) string {
	hs := make([]string, len(entities))
	for i := range entities {
		hs[i] = entities[i].ID + "\x00" + EntityHash(&entities[i])
	}
	sort.Strings(hs)
	h := sha256.New()
	for _, s := range hs {
		h.Write([]byte(s))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Delta is what changed between two versions of a list, as sorted entity ids.
type Delta struct {
	Added   []string `json:"added"`
	Changed []string `json:"changed"`
	Removed []string `json:"removed"`
}

// Empty reports whether nothing changed.
func (d Delta) Empty() bool { return len(d.Added)+len(d.Changed)+len(d.Removed) == 0 }

// Diff compares two versions of a list by entity id and content hash.
func Diff(old, cur []Entity) Delta {
	before := make(map[string]string, len(old))
	for i := range old {
		before[old[i].ID] = EntityHash(&old[i])
	}
	d := Delta{Added: []string{}, Changed: []string{}, Removed: []string{}}
	seen := make(map[string]bool, len(cur))
	for i := range cur {
		id := cur[i].ID
		seen[id] = true
		h, ok := before[id]
		switch {
		case !ok:
			d.Added = append(d.Added, id)
		case h != EntityHash(&cur[i]):
			d.Changed = append(d.Changed, id)
		}
	}
	for id := range before {
		if !seen[id] {
			d.Removed = append(d.Removed, id)
		}
	}
	sort.Strings(d.Added)
	sort.Strings(d.Changed)
	sort.Strings(d.Removed)
	return d
}
