package automation

import (
	"fmt"
	"strings"
)

// DocumentFieldsInput is what a document-fields automation tells the model: the custom
// document type's fields and the document's text. The document's password is not part of
// it; the activity passes it to Ask as a secret so that it is redacted if the text holds it.
type DocumentFieldsInput struct {
	DocumentID string `json:"documentId"`
	// Type is the organisation's custom document type, e.g. "invoice".
	Type   string      `json:"type"`
	Fields []FieldSpec `json:"fields"`
	// Text is the document's text as read (text layer or OCR), one line per line.
	Text string `json:"text"`
}

// FieldSpec is one field of a custom document type.
type FieldSpec struct {
	Name string `json:"name"`
	// Label is the printed label the value follows, when the template names one.
	Label    string `json:"label,omitempty"`
	Required bool   `json:"required"`
}

// ReviewFlag marks an extraction made by a model: it always goes to requires_review.
const ReviewFlag = "machine_extracted"

// DocumentFieldsPrompt is the model step of a document-fields automation: one nullable
// string per field, nothing else.
func DocumentFieldsPrompt(in DocumentFieldsInput) (Prompt, error) {
	if len(in.Fields) == 0 {
		return Prompt{}, fmt.Errorf("document type %q has no fields to extract", in.Type)
	}
	props := map[string]any{}
	names := make([]string, 0, len(in.Fields))
	var list strings.Builder
	for _, f := range in.Fields {
		props[f.Name] = map[string]any{"type": []string{"string", "null"}, "maxLength": 500}
		names = append(names, f.Name)
		fmt.Fprintf(&list, "- %s", f.Name)
		if f.Label != "" {
			fmt.Fprintf(&list, " (printed after the label %q)", f.Label)
		}
		if f.Required {
			list.WriteString(" [required]")
		}
		list.WriteByte('\n')
	}
	schema := mustSchema(map[string]any{
		"type": "object", "additionalProperties": false, "required": names, "properties": props,
	})
	text, cut := clip(in.Text, MaxContextBytes)
	note := ""
	if cut {
		note = "(The text was cut at its size limit.)"
	}
	return Prompt{
		System: lines(
			"You read business documents and copy field values exactly as printed.",
			"Use null for a field the text does not show. Never guess or compute a value.",
		),
		Prompt: lines(
			fmt.Sprintf("Extract these fields of a %q document:", in.Type),
			strings.TrimRight(list.String(), "\n"),
			"", "Document text:", "<<<", text, ">>>", note,
		),
		Schema:      schema,
		Temperature: ptr(0.0),
		MaxTokens:   1500,
	}, nil
}

// DocumentFields reads a validated document-fields answer: the values found, by field
// name, trimmed; fields answered null or blank are absent.
func DocumentFields(answer any) map[string]string {
	out := map[string]string{}
	m, _ := answer.(map[string]any)
	for k, v := range m {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			out[k] = strings.TrimSpace(s)
		}
	}
	return out
}
