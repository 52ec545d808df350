package documents

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Template is an organisation's custom document type: keywords that must appear, keywords
// that must not, and the fields to extract.
type Template struct {
	// ID identifies the template (the lead's store assigns it).
	ID string `json:"id"`
	// Type is the document type given to documents it matches, e.g. "invoice".
	Type        string          `json:"type"`
	MustInclude []string        `json:"mustInclude"`
	MustExclude []string        `json:"mustExclude,omitempty"`
	Fields      []TemplateField `json:"fields"`
}

// TemplateField is one field of a template: found after a printed label, or by a regular
// expression (its first group, else the whole match), or by a label whose value must match
// the expression.
type TemplateField struct {
	Name      string `json:"name"`
	Label     string `json:"label,omitempty"`
	Regex     string `json:"regex,omitempty"`
	Validator string `json:"validator,omitempty"`
	Required  bool   `json:"required"`
}

// Limits on a template definition.
const (
	maxTemplateKeywords = 20
	maxTemplateFields   = 50
	maxTemplateText     = 200
)

// TemplateError lists what is wrong with a template definition, keyed by a JSON path
// ("type", "mustInclude[0]", "fields[2].regex"), ready for a 422 response.
type TemplateError struct {
	Fields map[string]string
}

// Error implements error.
func (e *TemplateError) Error() string {
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + e.Fields[k]
	}
	return "invalid template: " + strings.Join(parts, "; ")
}

var fieldNameRe = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// Validate checks a template definition: a type name that is not a built-in type, at least
// one keyword that must appear, fields with a unique snake_case name, a label or a regex
// that compiles (Go's RE2: linear time, no catastrophic backtracking), a known validator.
func (t Template) Validate() error {
	errs := map[string]string{}
	if !fieldNameRe.MatchString(t.Type) {
		errs["type"] = "must be 1-64 lower-case letters, digits or underscores, starting with a letter"
	} else if IsBuiltinType(t.Type) || t.Type == TypeUnknown {
		errs["type"] = "is a built-in type"
	}
	if len(t.MustInclude) == 0 {
		errs["mustInclude"] = "needs at least one keyword"
	}
	for name, list := range map[string][]string{"mustInclude": t.MustInclude, "mustExclude": t.MustExclude} {
		if len(list) > maxTemplateKeywords {
			errs[name] = fmt.Sprintf("at most %d keywords", maxTemplateKeywords)
		}
		for i, k := range list {
			if len(labelTokens(k)) == 0 || len(k) > maxTemplateText {
				errs[fmt.Sprintf("%s[%d]", name, i)] = fmt.Sprintf("must hold a letter or digit and be at most %d characters", maxTemplateText)
			}
		}
	}
	if len(t.Fields) == 0 {
		errs["fields"] = "needs at least one field"
	}
	if len(t.Fields) > maxTemplateFields {
		errs["fields"] = fmt.Sprintf("at most %d fields", maxTemplateFields)
	}
	seen := map[string]bool{}
	for i, f := range t.Fields {
		p := fmt.Sprintf("fields[%d]", i)
		switch {
		case !fieldNameRe.MatchString(f.Name):
			errs[p+".name"] = "must be 1-64 lower-case letters, digits or underscores, starting with a letter"
		case seen[f.Name]:
			errs[p+".name"] = "is used twice"
		}
		seen[f.Name] = true
		if f.Label == "" && f.Regex == "" {
			errs[p] = "needs a label or a regex"
		}
		if f.Label != "" && (len(labelTokens(f.Label)) == 0 || len(f.Label) > maxTemplateText) {
			errs[p+".label"] = fmt.Sprintf("must hold a letter or digit and be at most %d characters", maxTemplateText)
		}
		if f.Regex != "" {
			if len(f.Regex) > maxTemplateText {
				errs[p+".regex"] = fmt.Sprintf("at most %d characters", maxTemplateText)
			} else if _, err := regexp.Compile(f.Regex); err != nil {
				errs[p+".regex"] = "does not compile: " + err.Error()
			}
		}
		if f.Validator != "" {
			if _, ok := validators[f.Validator]; !ok {
				errs[p+".validator"] = "unknown validator; one of " + strings.Join(Validators(), ", ")
			}
		}
	}
	if len(errs) > 0 {
		return &TemplateError{Fields: errs}
	}
	return nil
}

// validator checks a value and returns its normalised form.
type validator func(value string, now time.Time) (string, error)

// validators are the checks a template field can name.
var validators = map[string]validator{
	"npwp": func(v string, now time.Time) (string, error) {
		n, err := ParseNPWP(v, now)
		if err != nil {
			return v, err
		}
		return n.Canonical(), nil
	},
	"nik": func(v string, now time.Time) (string, error) {
		n, err := ParseNIK(v, now)
		return n.Digits, err
	},
	"luhn": func(v string, _ time.Time) (string, error) {
		d := digitsOnly(v)
		if !LuhnValid(d) {
			return v, invalid("check_digit", "the Luhn check digit does not match")
		}
		return d, nil
	},
	"date": func(v string, _ time.Time) (string, error) {
		t, _, ok := parseDate(v)
		if !ok {
			return v, invalid("date", "not a date")
		}
		return t.Format(time.DateOnly), nil
	},
	"numeric": func(v string, _ time.Time) (string, error) {
		d := digitsOnly(v)
		if d == "" {
			return v, invalid("format", "not a number")
		}
		return d, nil
	},
}

// Validators lists the validator names a template field may use.
func Validators() []string {
	names := make([]string, 0, len(validators))
	for n := range validators {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// extractTemplate extracts a template's fields.
func extractTemplate(x *Extraction, lines []Line, t Template, opts ExtractOptions) {
	var stops []string
	for _, f := range t.Fields {
		if f.Label != "" {
			stops = append(stops, f.Label)
		}
	}
	for _, tf := range t.Fields {
		var re *regexp.Regexp
		if tf.Regex != "" {
			re = regexp.MustCompile(tf.Regex) // Validate compiled it already
		}
		var f Field
		ok := false
		if tf.Label != "" {
			f, _, _, ok = labelled(lines, tf.Label, stops)
			if ok && re != nil {
				if m := re.FindStringSubmatch(f.Value); m != nil {
					f.Value = firstGroup(m)
				} else {
					f.fail("regex", "pattern")
				}
			}
		} else if m, found := findPattern(lines, 0, re, nil); found {
			f, ok = Field{Value: m.group, OCRConfidence: minConf(m.words), Label: LabelPattern}, true
		}
		if !ok {
			x.missing(tf.Name, tf.Required)
			continue
		}
		f.Required = tf.Required
		if v, has := validators[tf.Validator]; has && f.Problem == "" {
			norm, err := v(f.Value, opts.Now)
			if err == nil {
				f.Value = norm
			}
			f.setValid(tf.Validator, err)
		}
		x.set(tf.Name, f)
	}
}

func firstGroup(m []string) string {
	if len(m) > 1 && m[1] != "" {
		return m[1]
	}
	return m[0]
}
