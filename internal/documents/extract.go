package documents

import (
	"regexp"
	"strings"
	"time"
	"unicode"
)

// The built-in document types.
const (
	TypeNPWP     = "npwp"
	TypeKTP      = "ktp"
	TypePassport = "passport"
	// TypeUnknown is what Classify returns when nothing matches well enough.
	TypeUnknown = "unknown"
)

// BuiltinTypes lists the built-in document types, for validating a type hint.
func BuiltinTypes() []string { return []string{TypeNPWP, TypeKTP, TypePassport} }

// IsBuiltinType reports whether t is a built-in document type.
func IsBuiltinType(t string) bool {
	for _, b := range BuiltinTypes() {
		if t == b {
			return true
		}
	}
	return false
}

// Field is one extracted value with the evidence Decide turns into a confidence.
type Field struct {
	// Value is normalised: canonical numbers, ISO dates (YYYY-MM-DD), upper-case text.
	Value string `json:"value"`
	// Confidence (0..1) is set by Decide.
	Confidence float64 `json:"confidence"`
	// OCRConfidence is the lowest confidence of the words the value was read from
	// (TextLayerConfidence for a PDF text layer).
	OCRConfidence float64    `json:"ocrConfidence"`
	Label         LabelMatch `json:"label"`
	Required      bool       `json:"required"`
	// Validator names the check applied to the value ("npwp", "nik", "mrz", "date", ...).
	Validator string `json:"validator,omitempty"`
	// Valid is the validator's verdict; nil when no validator applies.
	Valid *bool `json:"valid,omitempty"`
	// Problem is the reason code of a failed validation ("check_digit", "date", "mismatch", ...).
	Problem string `json:"problem,omitempty"`
	// Repaired is true when characters were corrected (O read for 0, a realigned MRZ line).
	Repaired bool `json:"repaired,omitempty"`
}

func (f *Field) setValid(validator string, err error) {
	f.Validator = validator
	ok := err == nil
	f.Valid = &ok
	if err != nil {
		f.Problem = "invalid"
		if ve, is := err.(*ValidationError); is {
			f.Problem = ve.Code
		}
	}
}

func (f *Field) fail(validator, problem string) {
	f.Validator = validator
	no := false
	f.Valid, f.Problem = &no, problem
}

// Extraction is the result of Extract: the fields of a document and cross-field flags.
type Extraction struct {
	Type       string           `json:"type"`
	TemplateID string           `json:"templateId,omitempty"`
	Source     TextSource       `json:"source"`
	Fields     map[string]Field `json:"fields"`
	// Order lists the field names in the order the document prints them.
	Order []string `json:"order"`
	// Flags are document-level findings (e.g. "nik_birth_date_mismatch", "expired").
	Flags []string `json:"flags,omitempty"`
}

func (x *Extraction) set(name string, f Field) {
	if _, ok := x.Fields[name]; !ok {
		x.Order = append(x.Order, name)
	}
	x.Fields[name] = f
}

func (x *Extraction) missing(name string, required bool) {
	x.set(name, Field{Label: LabelMissing, Required: required})
}

// put records a found field (marking it required or not) or a missing one.
func (x *Extraction) put(name string, f Field, found, required bool) {
	if !found {
		x.missing(name, required)
		return
	}
	f.Required = required
	x.set(name, f)
}

func (x *Extraction) flag(f string) { x.Flags = appendOnce(x.Flags, f) }

// ExtractOptions tunes Extract.
type ExtractOptions struct {
	// Now is the reference date for 2-digit years and expiry checks; zero means time.Now().
	Now time.Time
}

// Extract reads the fields of a document of the given type from its text. When tmpl is
// not nil the template's fields are extracted (docType is then the template's type);
// otherwise docType must be a built-in type or TypeUnknown (which extracts nothing and
// flags "unclassified"). Errors: ErrUnknownType (Stage "extract").
func Extract(text *TextResult, docType string, tmpl *Template, opts ExtractOptions) (*Extraction, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	if text == nil {
		text = &TextResult{}
	}
	x := &Extraction{Type: docType, Source: text.Source, Fields: map[string]Field{}}
	if tmpl != nil {
		x.Type, x.TemplateID = tmpl.Type, tmpl.ID
		if err := tmpl.Validate(); err != nil {
			return nil, stageErr(StageExtract, ErrUnknownType, "the template is not valid", err)
		}
		extractTemplate(x, text.Lines, *tmpl, opts)
		return x, nil
	}
	switch docType {
	case TypeNPWP:
		extractNPWP(x, text.Lines, opts)
	case TypeKTP:
		extractKTP(x, text.Lines, opts)
	case TypePassport:
		extractPassport(x, text.Lines, opts)
	case TypeUnknown:
		x.flag("unclassified")
	default:
		return nil, stageErr(StageExtract, ErrUnknownType, "unknown document type "+quoteType(docType), nil)
	}
	return x, nil
}

func quoteType(s string) string {
	if len(s) > 40 {
		s = s[:40]
	}
	return `"` + strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return '?'
	}, s) + `"`
}

// labelled finds a label (preferably at a line or column start, else anywhere on a line)
// and returns the value after it; when the label ends its line, the value is the next line.
func labelled(lines []Line, label string, stops []string) (Field, []Word, int, bool) {
	h, ok := findLabel(lines, 0, label, true)
	if !ok {
		h, ok = findLabel(lines, 0, label, false)
	}
	if !ok {
		return Field{Label: LabelMissing}, nil, -1, false
	}
	words := valueAfter(lines[h.line], h.end, stops)
	line := h.line
	if len(words) == 0 && h.line+1 < len(lines) && !startsLabel(lines[h.line+1].Words, stops) {
		line = h.line + 1
		words = valueAfter(lines[line], 0, stops)
	}
	if len(words) == 0 {
		return Field{Label: LabelMissing}, nil, -1, false
	}
	return Field{Value: wordsText(words), OCRConfidence: minConf(words), Label: h.match}, words, line, true
}

// patternMatch is a regular expression match on one line with the words it covers.
type patternMatch struct {
	line  int
	text  string
	group string
	words []Word
}

// findPattern searches each line's text (words joined by single spaces) for re and returns
// the first match with the words it overlaps; lines for which skip is true are passed over.
func findPattern(lines []Line, from int, re *regexp.Regexp, skip func(Line) bool) (patternMatch, bool) {
	for li := max(from, 0); li < len(lines); li++ {
		l := lines[li]
		if skip != nil && skip(l) {
			continue
		}
		text := l.Text()
		loc := re.FindStringSubmatchIndex(text)
		if loc == nil {
			continue
		}
		m := patternMatch{line: li, text: text[loc[0]:loc[1]]}
		m.group = m.text
		if len(loc) >= 4 && loc[2] >= 0 {
			m.group = text[loc[2]:loc[3]]
		}
		pos := 0
		for _, w := range l.Words {
			start, end := pos, pos+len(w.Text)
			if start < loc[1] && end > loc[0] {
				m.words = append(m.words, w)
			}
			pos = end + 1
		}
		return m, true
	}
	return patternMatch{}, false
}

// repairDigits maps the letters OCR confuses with digits in a token that is meant to be a
// number, and reports whether anything changed.
func repairDigits(s string) (string, bool) {
	changed := false
	out := strings.Map(func(r rune) rune {
		var d rune
		switch r {
		case 'O', 'o', 'D', 'Q', '@':
			d = '0'
		case 'I', 'l', '|', 'i', '!', ']', '[':
			d = '1'
		case 'Z', 'z':
			d = '2'
		case 'S', 's', '$':
			d = '5'
		case 'G', 'b':
			d = '6'
		case 'B':
			d = '8'
		case 'g':
			d = '9'
		default:
			return r
		}
		changed = true
		return d
	}, s)
	return out, changed
}

// numberValue turns the words of a printed number into its characters: spaces dropped,
// letters OCR confuses with digits repaired, ',' read for '.' normalised.
func numberValue(words []Word) (string, bool) {
	return repairDigits(dashFolder.Replace(wordsText(words)))
}

// dashFolder folds the dashes OCR produces into '-', reads ',' as '.' and drops spaces.
var dashFolder = strings.NewReplacer(" ", "", ",", ".", "—", "-", "–", "-", "‐", "-", "−", "-", "--", "-")

var months = map[string]int{
	"JAN": 1, "FEB": 2, "PEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "MEI": 5, "JUN": 6, "JUL": 7,
	"AUG": 8, "AGU": 8, "AGT": 8, "AGS": 8, "SEP": 9, "OCT": 10, "OKT": 10, "NOV": 11, "NOP": 11, "DEC": 12, "DES": 12,
}

var (
	numericDate = regexp.MustCompile(`^(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{4})$`)
	textDate    = regexp.MustCompile(`^(\d{1,2}) ?([A-Z]{3})[A-Z]* ?(\d{4})$`)
)

// parseDate reads a printed date: DD/MM/YYYY, DD-MM-YYYY, DD.MM.YYYY or "DD MON YYYY"
// (English or Indonesian month names), after repairing OCR digit confusions.
func parseDate(s string) (time.Time, bool, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if m := textDate.FindStringSubmatch(s); m != nil {
		mon, ok := months[m[2][:3]]
		if !ok {
			return time.Time{}, false, false
		}
		t, ok := makeDate(atoiSafe(m[3]), mon, atoiSafe(m[1]))
		return t, false, ok
	}
	compact := strings.ReplaceAll(s, " ", "")
	fixed, repaired := repairDigits(compact)
	m := numericDate.FindStringSubmatch(fixed)
	if m == nil {
		return time.Time{}, repaired, false
	}
	t, ok := makeDate(atoiSafe(m[3]), atoiSafe(m[2]), atoiSafe(m[1]))
	return t, repaired, ok
}

func atoiSafe(s string) int {
	n := 0
	for i := 0; i < len(s) && i < 9; i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// dateField normalises a date field to ISO form and validates it.
func dateField(f Field) (Field, time.Time) {
	t, repaired, ok := parseDate(f.Value)
	f.Repaired = f.Repaired || repaired
	if !ok {
		f.fail("date", "date")
		return f, time.Time{}
	}
	f.Value = t.Format(time.DateOnly)
	f.setValid("date", nil)
	return f, t
}

// textField normalises a name-like value: upper case, single spaces, no stray punctuation
// at the ends. A digit in it is an OCR error (or not a name) and fails the "text" check.
func textField(f Field, allowDigits bool) Field {
	f.Value = strings.Join(strings.Fields(strings.ToUpper(f.Value)), " ")
	f.Value = strings.Trim(f.Value, " .,:;-_'\"|")
	if allowDigits {
		// In an address, a token that is mostly digits is a number: "@13" is "013".
		toks := strings.Fields(f.Value)
		for i, t := range toks {
			if n := countDigits(t); n > 0 && n*2 >= len(t) {
				if fixed, changed := repairDigits(t); changed && countDigits(fixed) == len(fixed) {
					toks[i], f.Repaired = fixed, true
				}
			}
		}
		f.Value = strings.Join(toks, " ")
		// Addresses write "NO." (nomor); OCR often reads its dot as a comma.
		f.Value = strings.ReplaceAll(" "+f.Value, " NO, ", " NO. ")[1:]
	}
	if !allowDigits && strings.ContainsFunc(f.Value, unicode.IsDigit) {
		f.fail("text", "unexpected_digit")
	}
	return f
}

func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}
