package fraud

import (
	"fmt"
	"sort"
	"strings"
)

// ValidationError is a request or rule set that cannot be accepted; the API answers it with
// 400 "validation failed" and Fields as details.fieldErrors (SPEC 7.1).
type ValidationError struct {
	// Fields maps a field path such as "rules[2].expression" to what is wrong with it.
	Fields map[string][]string
}

// add records one problem with the field at path.
func (e *ValidationError) add(path, format string, args ...any) {
	if e.Fields == nil {
		e.Fields = map[string][]string{}
	}
	e.Fields[path] = append(e.Fields[path], fmt.Sprintf(format, args...))
}

// orNil returns e when it holds a problem and nil otherwise, so callers can return it directly.
func (e *ValidationError) orNil() error {
	if len(e.Fields) == 0 {
		return nil
	}
	return e
}

// Error lists the problems in path order on one line.
func (e *ValidationError) Error() string {
	paths := make([]string, 0, len(e.Fields))
	for p := range e.Fields {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	parts := make([]string, len(paths))
	for i, p := range paths {
		parts[i] = p + ": " + strings.Join(e.Fields[p], ", ")
	}
	return "validation failed: " + strings.Join(parts, "; ")
}
