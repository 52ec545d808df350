package screening

import (
	"fmt"
	"io"
	"sort"
	"sync"
)

// Format names a list file format.
type Format string

// The list formats the engine loads.
const (
	FormatOFAC          Format = "ofac"          // sdn.csv, with alt.csv and add.csv beside it
	FormatUN            Format = "un"            // consolidated.xml
	FormatOpenSanctions Format = "opensanctions" // targets.simple.csv
	FormatOrgCSV        Format = "csv"           // an organisation's own list (OrgCSVColumns)
)

// ParseFormat reads a format name; ok is false for unknown ones.
func ParseFormat(s string) (Format, bool) {
	switch f := Format(s); f {
	case FormatOFAC, FormatUN, FormatOpenSanctions, FormatOrgCSV:
		return f, true
	}
	return "", false
}

// Load parses a list in its format. For OFAC, main is sdn.csv and extra may hold "alt" and
// "add" readers; the other formats are one file.
func Load(f Format, main io.Reader, extra map[string]io.Reader) ([]Entity, error) {
	switch f {
	case FormatOFAC:
		return LoadOFAC(main, extra["alt"], extra["add"])
	case FormatUN:
		return LoadUN(main)
	case FormatOpenSanctions:
		return LoadOpenSanctions(main)
	case FormatOrgCSV:
		return LoadOrgCSV(main)
	}
	return nil, fmt.Errorf("unknown list format %q", f)
}

// Catalog holds the index of the version in service of every list, swapped atomically when
// a new version is loaded; screenings read it without locks held during the search.
type Catalog struct {
	mu    sync.RWMutex
	lists map[string]*Index
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog { return &Catalog{lists: map[string]*Index{}} }

// Put puts a list version's index in service.
func (c *Catalog) Put(ix *Index) {
	c.mu.Lock()
	c.lists[ix.ListID()] = ix
	c.mu.Unlock()
}

// Get returns a list's index in service.
func (c *Catalog) Get(listID string) (*Index, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	ix, ok := c.lists[listID]
	return ix, ok
}

// Search screens q against the named lists (all when none are named) and merges the hits,
// best first, at most q.Limit (20 when 0).
func (c *Catalog) Search(q Query, listIDs []string) []Hit {
	c.mu.RLock()
	var ixs []*Index
	if len(listIDs) == 0 {
		for _, ix := range c.lists {
			ixs = append(ixs, ix)
		}
	} else {
		for _, id := range listIDs {
			if ix, ok := c.lists[id]; ok {
				ixs = append(ixs, ix)
			}
		}
	}
	c.mu.RUnlock()
	sort.Slice(ixs, func(a, b int) bool { return ixs[a].ListID() < ixs[b].ListID() })
	var hits []Hit
	for _, ix := range ixs {
		hits = append(hits, ix.Search(q)...)
	}
	SortHits(hits)
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// KindOrganisation is the kind of a list an organisation manages itself through the API; a
// list refreshed from a configured source has its format as kind.
const KindOrganisation = "organisation"
