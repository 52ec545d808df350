package automation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// MaxAnswerAttempts is the answers Ask accepts from the model for one step: the first,
// and one more with the problem of the first in the conversation.
const MaxAnswerAttempts = 2

// DefaultTimeout bounds one exchange with the model when a Prompt sets none.
const DefaultTimeout = 60 * time.Second

// Prompt is one model step as the workflow rendered it: the activity's input.
type Prompt struct {
	// System is the optional system message.
	System string `json:"system,omitempty"`
	// Prompt is the user message.
	Prompt string `json:"prompt"`
	// Schema, when set, is the JSON Schema the answer must conform to; the answer is
	// then parsed as JSON.
	Schema json.RawMessage `json:"schema,omitempty"`
	// Temperature, when set, is the sampling temperature.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens, when positive, caps the tokens of each answer.
	MaxTokens int `json:"maxTokens,omitempty"`
	// Timeout bounds each exchange (DefaultTimeout when zero).
	Timeout time.Duration `json:"timeout,omitempty"`
}

// Result is what a model step produced, also when it failed after talking to the model.
type Result struct {
	// Answer is the parsed JSON answer when the step has a schema, else the text.
	Answer any `json:"answer"`
	// Model is the model that answered last.
	Model string `json:"model"`
	// Usage sums the tokens of every exchange of the step.
	Usage Usage `json:"usage"`
	// Latency sums the wall time of every exchange.
	Latency time.Duration `json:"latency"`
	// Attempts is the answers requested (1 or 2).
	Attempts int `json:"attempts"`
	// Conversation is what was sent and received, after redaction: the audit record.
	Conversation []Message `json:"conversation"`
}

// schemaInstruction is appended to the system message of a step with a schema.
const schemaInstruction = "Answer with one JSON value only, without prose or code fences, that conforms to this JSON Schema:\n"

// Ask runs one model step: it redacts the prompt (secrets lists values such as document
// passwords that must not reach the model, on top of the Redactor's patterns), sends it,
// and with a schema parses and validates the answer, retrying once with the problem in the
// conversation. The Result is filled as far as the step got, also with an error.
func Ask(ctx context.Context, m Model, p Prompt, secrets ...string) (Result, error) {
	var res Result
	var schema *Schema
	if len(p.Schema) > 0 {
		s, err := CompileSchema(p.Schema)
		if err != nil {
			return res, &InvalidAnswerError{Reason: err.Error()}
		}
		schema = s
	}
	red := NewRedactor(secrets...)
	system := p.System
	if schema != nil {
		system = strings.TrimSpace(system + "\n\n" + schemaInstruction + compactJSON(p.Schema))
	}
	if system != "" {
		res.Conversation = append(res.Conversation, Message{Role: RoleSystem, Content: red.Redact(system)})
	}
	res.Conversation = append(res.Conversation, Message{Role: RoleUser, Content: red.Redact(p.Prompt)})
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	for attempt := 1; attempt <= MaxAnswerAttempts; attempt++ {
		res.Attempts = attempt
		reply, err := exchange(ctx, m, timeout, Request{
			Messages: res.Conversation, Temperature: p.Temperature, MaxTokens: p.MaxTokens, JSON: schema != nil,
		})
		if err != nil {
			return res, err
		}
		res.Model = reply.Model
		res.Usage = res.Usage.Add(reply.Usage)
		res.Latency += reply.Latency
		res.Conversation = append(res.Conversation, Message{Role: RoleAssistant, Content: reply.Content})
		if schema == nil {
			res.Answer = reply.Content
			return res, nil
		}
		answer, problem := check(schema, reply)
		if problem == "" {
			res.Answer = answer
			return res, nil
		}
		if attempt == MaxAnswerAttempts {
			return res, &InvalidAnswerError{Reason: problem}
		}
		res.Conversation = append(res.Conversation, Message{Role: RoleUser, Content: "Your answer was not accepted: " + problem +
			"\nAnswer again with one JSON value only that conforms to the schema."})
	}
	return res, errors.New("unreachable")
}

// exchange makes one call bounded by timeout.
func exchange(ctx context.Context, m Model, timeout time.Duration, req Request) (Reply, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	reply, err := m.Complete(ctx, req)
	if err != nil && ctx.Err() != nil && !errors.Is(err, ErrNotConfigured) {
		var rl *RateLimitedError
		if !errors.As(err, &rl) {
			return reply, &ProviderError{Temporary: true, Msg: fmt.Sprintf("model did not answer within %s", timeout)}
		}
	}
	return reply, err
}

// check parses and validates one answer; it returns the parsed value or the problem.
func check(s *Schema, reply Reply) (any, string) {
	v, err := ParseAnswer(reply.Content)
	if err != nil {
		if reply.FinishReason == "length" {
			return nil, "the answer was cut off at the token limit and is not complete JSON"
		}
		return nil, err.Error()
	}
	if err := s.Validate(v); err != nil {
		return nil, "the answer does not conform to the schema: " + err.Error()
	}
	return v, ""
}

// ParseAnswer reads a model's answer as exactly one JSON value, tolerating a Markdown code
// fence around it (models add one despite being asked not to).
func ParseAnswer(text string) (any, error) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "```") {
		t = strings.TrimPrefix(t, "```")
		if nl := strings.IndexByte(t, '\n'); nl >= 0 && !strings.ContainsAny(t[:nl], "{[\"") {
			t = t[nl+1:] // the fence's language tag
		}
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "```"))
	}
	if t == "" {
		return nil, errors.New("the answer is empty, expected JSON")
	}
	dec := json.NewDecoder(strings.NewReader(t))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the answer is not valid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the answer holds more than one JSON value")
	}
	return v, nil
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
