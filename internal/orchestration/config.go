package orchestration

import (
	"encoding/json"
	"math"
	"time"
)

// ConfigReader reads the fields of one JSON config object for a Kind, recording each
// problem under the field's path (for example "definition.nodes[2].config.url"). Every
// getter marks its field as known; Parse reports the fields no getter asked for.
type ConfigReader struct {
	path   string
	fields map[string]json.RawMessage
	known  map[string]bool
	c      *templateCompiler
}

func newConfigReader(path string, raw json.RawMessage, c *templateCompiler) *ConfigReader {
	r := &ConfigReader{path: path, known: map[string]bool{}, c: c}
	if len(raw) == 0 || string(raw) == "null" {
		return r
	}
	if err := json.Unmarshal(raw, &r.fields); err != nil || r.fields == nil {
		c.errs.Add(path, "must be an object")
		r.fields = nil
	}
	return r
}

// Path returns the path of the named field.
func (r *ConfigReader) Path(name string) string { return r.path + "." + name }

// Errorf records a problem with the named field.
func (r *ConfigReader) Errorf(name, format string, args ...any) {
	r.c.errs.Add(r.Path(name), format, args...)
}

// Has reports whether the field is present and not null.
func (r *ConfigReader) Has(name string) bool {
	r.known[name] = true
	v, ok := r.fields[name]
	return ok && string(v) != "null"
}

// raw returns the field's JSON, or nil (with a problem if required) when it is absent.
func (r *ConfigReader) raw(name string, required bool) json.RawMessage {
	if !r.Has(name) {
		if required {
			r.Errorf(name, "is required")
		}
		return nil
	}
	return r.fields[name]
}

// String reads a string field; "" when absent.
func (r *ConfigReader) String(name string, required bool) string {
	raw := r.raw(name, required)
	if raw == nil {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		r.Errorf(name, "must be a string")
		return ""
	}
	if required && s == "" {
		r.Errorf(name, "must not be empty")
	}
	return s
}

// Int reads an integer field within [lo, hi]; def when absent.
func (r *ConfigReader) Int(name string, required bool, def, lo, hi int) int {
	raw := r.raw(name, required)
	if raw == nil {
		return def
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f != math.Trunc(f) {
		r.Errorf(name, "must be an integer")
		return def
	}
	if f < float64(lo) || f > float64(hi) {
		r.Errorf(name, "must be between %d and %d", lo, hi)
		return def
	}
	return int(f)
}

// Duration reads a duration written as a Go duration string ("500ms", "30s", "2h45m")
// within [lo, hi]; def when absent.
func (r *ConfigReader) Duration(name string, required bool, def, lo, hi time.Duration) time.Duration {
	raw := r.raw(name, required)
	if raw == nil {
		return def
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		r.Errorf(name, `must be a duration string such as "30s" or "2h"`)
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		r.Errorf(name, `invalid duration %q (use a form such as "30s", "5m" or "2h")`, s)
		return def
	}
	if d < lo || d > hi {
		r.Errorf(name, "must be between %s and %s", lo, hi)
		return def
	}
	return d
}

// Object returns a reader for a nested object field, or nil when it is absent.
func (r *ConfigReader) Object(name string, required bool) *ConfigReader {
	raw := r.raw(name, required)
	if raw == nil {
		return nil
	}
	return newConfigReader(r.Path(name), raw, r.c)
}

// Template reads a field as a Template (see Template for the syntax).
func (r *ConfigReader) Template(name string, required bool) *Template {
	raw := r.raw(name, required)
	if raw == nil {
		return nil
	}
	return r.c.compileTemplate(r.Path(name), raw)
}

// Expression reads a string field holding one expression (without "{{ }}"); asBool
// requires it to give a boolean.
func (r *ConfigReader) Expression(name string, required, asBool bool) *Expression {
	src := r.String(name, required)
	if src == "" {
		return nil
	}
	e, err := compileExpression(r.Path(name), src, asBool)
	if err != nil {
		r.Errorf(name, "%v", err)
		return nil
	}
	r.c.exps = append(r.c.exps, e)
	return e
}

// Finish reports the fields that no getter read, in name order. Parse calls it for a node's
// config; a Kind calls it for each nested reader it got from Object.
func (r *ConfigReader) Finish() {
	if r == nil {
		return
	}
	for _, name := range sortedKeysOf(r.fields) {
		if !r.known[name] {
			r.Errorf(name, "unknown field")
		}
	}
}
