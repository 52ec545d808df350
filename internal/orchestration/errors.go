package orchestration

import (
	"fmt"
	"sort"
	"strings"
)

// FieldErrors maps a field path such as "definition.nodes[2].config.url" to what is wrong
// with it; it is the shape of the API's details.fieldErrors.
type FieldErrors map[string][]string

// Add records one problem with the field at path.
func (f FieldErrors) Add(path, format string, args ...any) {
	f[path] = append(f[path], fmt.Sprintf(format, args...))
}

// Has reports whether any problem was recorded at path or below it.
func (f FieldErrors) Has(path string) bool {
	//workflowcheck:ignore (any match gives the same answer)
	for p := range f {
		if p == path || strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") {
			return true
		}
	}
	return false
}

// ValidationError is returned by Parse when a definition is not valid; the API answers it
// with 400 "validation failed" and Fields as details.fieldErrors.
type ValidationError struct {
	// Fields holds every problem found, keyed by field path.
	Fields FieldErrors
}

// Error lists the problems in path order on one line.
func (e *ValidationError) Error() string {
	paths := make([]string, 0, len(e.Fields))
	for p := range e.Fields {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	b.WriteString("validation failed")
	for i, p := range paths {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(p + ": " + strings.Join(e.Fields[p], ", "))
	}
	return b.String()
}
