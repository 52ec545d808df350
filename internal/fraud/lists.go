package fraud

import (
	"encoding/json"
	"regexp"
	"slices"
)

// Value lists (allow and deny lists) are the organisation's sets of strings that rules read as
// lists.<name>: a list replaced whole by PUT /api/fraud-lists/{name}, read on every decision.
const (
	// MaxListValues bounds one list, so a decision reads it in one bounded query.
	MaxListValues = 10000
	// MaxListValueLen is the longest value (the store's column).
	MaxListValueLen = 256
)

// listName is how a list is named in an expression (lists.<name>).
var listName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// ValidListName reports whether name can name a value list.
func ValidListName(name string) bool { return listName.MatchString(name) }

// ParseListValues parses the body of PUT /api/fraud-lists/{name}, {values: [string, ...]}, into
// the list's distinct values, sorted.
func ParseListValues(raw []byte) ([]string, error) {
	p := parser{}
	top := p.object(raw, "")
	if top == nil {
		return nil, p.err.orNil()
	}
	values := []string{}
	for key, val := range top {
		if key != "values" {
			p.err.add(key, "unknown field")
			continue
		}
		var items []json.RawMessage
		if json.Unmarshal(val, &items) != nil || items == nil {
			p.err.add(key, "must be an array of strings")
			continue
		}
		if len(items) > MaxListValues {
			p.err.add(key, "must hold at most %d values", MaxListValues)
			continue
		}
		for _, it := range items {
			var s string
			if json.Unmarshal(it, &s) != nil || s == "" || len(s) > MaxListValueLen {
				p.err.add(key, "every value must be a string of 1 to %d bytes", MaxListValueLen)
				break
			}
			values = append(values, s)
		}
	}
	if _, ok := top["values"]; !ok {
		p.err.add("values", "is required")
	}
	if err := p.err.orNil(); err != nil {
		return nil, err
	}
	slices.Sort(values)
	return slices.Compact(values), nil
}
