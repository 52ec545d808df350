package automation

import (
	"context"
	"time"
)

// Model answers one chat exchange. Implementations make one attempt: no retries of their
// own, since the workflow engine retries the activity that calls Ask.
type Model interface {
	// Complete sends the conversation and returns the model's reply.
	Complete(ctx context.Context, req Request) (Reply, error)
}

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one turn of a conversation.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one chat exchange sent to a Model.
type Request struct {
	Messages []Message
	// Temperature, when set, is the sampling temperature (0 to 2).
	Temperature *float64
	// MaxTokens, when positive, caps the tokens of the reply.
	MaxTokens int
	// JSON asks the provider for a JSON object answer (response_format json_object).
	JSON bool
}

// Usage counts the tokens of one or more exchanges.
type Usage struct {
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
	TotalTokens      int64 `json:"totalTokens"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		TotalTokens:      u.TotalTokens + v.TotalTokens,
	}
}

// Reply is a Model's answer to one Request.
type Reply struct {
	// Content is the text of the first choice.
	Content string
	// Model is the model that answered, as the provider names it.
	Model string
	// FinishReason is the provider's reason for stopping ("stop", "length", ...).
	FinishReason string
	Usage        Usage
	// Latency is the wall time of the exchange.
	Latency time.Duration
}
