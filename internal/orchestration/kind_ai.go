package orchestration

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/svcplatform/svc/internal/automation"
)

// Limits and defaults of ai nodes.
const (
	// DefaultAITimeout bounds one exchange with the model of an ai node without a timeout.
	DefaultAITimeout = automation.DefaultTimeout
	// MaxAITimeout is the largest timeout an ai node may set.
	MaxAITimeout = 10 * time.Minute
	// MaxAITokens is the largest maxTokens.
	MaxAITokens = 32768
	// MaxPromptBytes bounds a rendered prompt plus system message: the rendered prompt is
	// the activity's input and so part of the execution's history.
	MaxPromptBytes = 128 << 10
)

// AI is the "ai" kind: one answer from a language model (AI automation product), asked by
// an activity with its own timeout and retry policy. Config:
//
//	{"prompt": "Summarise for a reviewer: {{ steps.fetch.output.body }}",
//	 "system": "You are a compliance analyst.",
//	 "schema": {"type": "object", "required": ["summary"], "properties": {"summary": {"type": "string"}}},
//	 "temperature": 0.2, "maxTokens": 800, "timeout": "60s"}
//
// prompt and system are templates rendered as text. schema, a literal JSON Schema, makes
// the answer JSON that must conform to it: a non-conforming answer is asked again once with
// the problem, then fails the step. The output is {"answer", "model", "usage":
// {promptTokens, completionTokens, totalTokens}, "latencyMs", "attempts"}; answer is the
// parsed JSON with a schema, else the text.
type AI struct{}

// CallModel is a node answered by a language model in an activity.
type CallModel struct {
	Prompt automation.Prompt
}

func (CallModel) isAction() {}

// Name implements Kind.
func (AI) Name() string { return "ai" }

// Routes implements Kind: an ai node has one way out.
func (AI) Routes() Routes { return Routes{} }

// Compile implements Kind.
func (AI) Compile(r *ConfigReader) Step {
	s := &aiStep{}
	s.prompt = textTemplate(r, "prompt", true)
	s.system = textTemplate(r, "system", false)
	if raw := r.raw("schema", false); raw != nil {
		if _, err := automation.CompileSchema(raw); err != nil {
			r.Errorf("schema", "%v", err)
		} else {
			s.schema = append(json.RawMessage(nil), raw...)
		}
	}
	if raw := r.raw("temperature", false); raw != nil {
		var t float64
		if err := json.Unmarshal(raw, &t); err != nil || t < 0 || t > 2 {
			r.Errorf("temperature", "must be a number between 0 and 2")
		} else {
			s.temperature = &t
		}
	}
	s.maxTokens = r.Int("maxTokens", false, 0, 1, MaxAITokens)
	s.timeout = r.Duration("timeout", false, DefaultAITimeout, time.Second, MaxAITimeout)
	return s
}

// textTemplate reads a template that must render to text and, when literal, not be blank.
func textTemplate(r *ConfigReader, name string, required bool) *Template {
	t := r.Template(name, required)
	if t == nil {
		return nil
	}
	if v, literal := t.Literal(); !textual(t.root) || literal && strings.TrimSpace(Text(v)) == "" {
		r.Errorf(name, "must be a non-empty string")
	}
	return t
}

type aiStep struct {
	prompt      *Template
	system      *Template
	schema      json.RawMessage
	temperature *float64
	maxTokens   int
	timeout     time.Duration
}

// Plan renders the prompt and the system message; the model is asked by an activity.
func (s *aiStep) Plan(env Env) (Action, error) {
	p := automation.Prompt{Schema: s.schema, Temperature: s.temperature, MaxTokens: s.maxTokens, Timeout: s.timeout}
	v, err := s.prompt.Eval(env)
	if err != nil {
		return nil, err
	}
	p.Prompt = Text(v)
	if strings.TrimSpace(p.Prompt) == "" {
		return nil, fmt.Errorf("prompt renders to empty text")
	}
	if s.system != nil {
		if v, err = s.system.Eval(env); err != nil {
			return nil, err
		}
		p.System = Text(v)
	}
	if n := len(p.Prompt) + len(p.System); n > MaxPromptBytes {
		return nil, fmt.Errorf("prompt renders to %d bytes, more than the %d allowed", n, MaxPromptBytes)
	}
	return CallModel{Prompt: p}, nil
}
