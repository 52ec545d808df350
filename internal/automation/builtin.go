package automation

import (
	"encoding/json"
	"strings"
)

// The built-in automations of the suite (AI automation product). Each is a workflow the API
// starts; its model step uses the Prompt its builder makes here.
const (
	// KindCaseSummary summarises a case for its reviewer; the summary is machine-written.
	KindCaseSummary = "case_summary"
	// KindSARDraft drafts a SAR narrative that a person edits and submits under four-eyes.
	KindSARDraft = "sar_draft"
	// KindDocumentFields extracts a custom document type's fields when its template rules
	// found none; the result always goes to requires_review.
	KindDocumentFields = "document_fields"
)

// Kinds lists the built-in automations.
func Kinds() []string { return []string{KindCaseSummary, KindSARDraft, KindDocumentFields} }

// IsKind reports whether k is a built-in automation.
func IsKind(k string) bool {
	for _, x := range Kinds() {
		if x == k {
			return true
		}
	}
	return false
}

// MaxContextBytes bounds the case or document material put in one prompt; longer material
// is cut, and the prompt says so.
const MaxContextBytes = 48 << 10

// clip cuts s to at most n bytes on a rune boundary and says whether it did.
func clip(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// indentJSON renders v for a prompt; v holds only JSON-safe values.
func indentJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "{}"
	}
	return string(b)
}

// mustSchema marshals a schema built in code.
func mustSchema(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// lines joins the non-empty parts with newlines.
func lines(parts ...string) string {
	var out []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n")
}
