package automation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MaxSchemaBytes bounds a step's JSON Schema.
const MaxSchemaBytes = 32 << 10

// Schema is a compiled JSON Schema (draft 2020-12 unless it names another with $schema).
type Schema struct {
	raw json.RawMessage
	s   *jsonschema.Schema
}

// schemaURL is the name the compiler knows a step's schema by.
const schemaURL = "urn:svc:ai-answer"

// CompileSchema compiles raw, which must be a JSON object. References are resolved only
// inside the schema itself: nothing is fetched or read from disk.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	if len(raw) > MaxSchemaBytes {
		return nil, fmt.Errorf("schema is larger than %d bytes", MaxSchemaBytes)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema is not JSON: %v", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, errors.New("schema must be a JSON object")
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("schema: %v", oneLineErr(err))
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %v", oneLineErr(err))
	}
	return &Schema{raw: append(json.RawMessage(nil), raw...), s: s}, nil
}

// Raw returns the schema as given.
func (s *Schema) Raw() json.RawMessage { return s.raw }

// Validate reports why v (JSON values as encoding/json decodes them) does not conform.
func (s *Schema) Validate(v any) error {
	// The validator wants json.Number for numbers; re-decode to get them.
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if err := s.s.Validate(inst); err != nil {
		return errors.New(oneLineErr(err))
	}
	return nil
}

// noLoader refuses every external reference ($ref to a URL or a file).
type noLoader struct{}

// Load refuses.
func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external references are not allowed (%s)", url)
}

// oneLineErr flattens the validator's indented multi-line messages.
func oneLineErr(err error) string {
	var b strings.Builder
	for i, line := range strings.Split(err.Error(), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if i > 0 && b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(line)
	}
	return truncate(b.String(), 1000)
}
