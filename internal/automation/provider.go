package automation

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/svcplatform/svc/internal/netguard"
)

// ProviderConfig is the configuration of the model provider (config keys ai.*).
type ProviderConfig struct {
	// BaseURL is the OpenAI-compatible API root, e.g. https://api.openai.com/v1 or
	// http://127.0.0.1:11434/v1 for a local Ollama.
	BaseURL string
	// Model is the model name sent with every request.
	Model string
	// APIKey is sent as a Bearer token; empty sends no Authorization header. A secret:
	// never logged, never part of an error.
	APIKey string
	// AllowCIDRs are internal ranges the provider may live in despite the SSRF guard
	// (e.g. 127.0.0.0/8 for a local model server).
	AllowCIDRs []string
}

// Configured reports whether a provider is set up.
func (c ProviderConfig) Configured() bool { return c.BaseURL != "" && c.Model != "" }

// NewModel returns the Model of cfg: an OpenAI-compatible client whose connections go
// through the SSRF guard, or, when cfg names no provider, a Model that fails every step
// with ErrNotConfigured.
func NewModel(cfg ProviderConfig) (Model, error) {
	if !cfg.Configured() {
		return unconfigured{}, nil
	}
	guard, err := netguard.New(netguard.Config{AllowCIDRs: cfg.AllowCIDRs})
	if err != nil {
		return nil, fmt.Errorf("ai.allow_cidrs: %w", err)
	}
	if err := guard.CheckURL(cfg.BaseURL); err != nil {
		return nil, fmt.Errorf("ai.base_url: %w", err)
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(guard.Client()),
		// Temporal retries the activity; a second retry loop would hide 429s from it.
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	// NewChatCompletionService, unlike openai.NewClient, reads no OPENAI_* environment
	// variables: the config table is the only source.
	return &openAIModel{chat: openai.NewChatCompletionService(opts...), model: cfg.Model}, nil
}

type unconfigured struct{}

// Complete fails: no provider.
func (unconfigured) Complete(context.Context, Request) (Reply, error) {
	return Reply{}, ErrNotConfigured
}

type openAIModel struct {
	chat  openai.ChatCompletionService
	model string
}

// Complete sends one chat-completions request.
func (m *openAIModel) Complete(ctx context.Context, req Request) (Reply, error) {
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(m.model)}
	for _, msg := range req.Messages {
		switch msg.Role {
		case RoleSystem:
			params.Messages = append(params.Messages, openai.SystemMessage(msg.Content))
		case RoleAssistant:
			params.Messages = append(params.Messages, openai.AssistantMessage(msg.Content))
		default:
			params.Messages = append(params.Messages, openai.UserMessage(msg.Content))
		}
	}
	if req.Temperature != nil {
		params.Temperature = openai.Float(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		params.MaxTokens = openai.Int(int64(req.MaxTokens))
	}
	if req.JSON {
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	}
	start := time.Now()
	var raw *http.Response
	res, err := m.chat.New(ctx, params, option.WithResponseInto(&raw))
	latency := time.Since(start)
	if err != nil {
		return Reply{}, providerError(ctx, err)
	}
	if len(res.Choices) == 0 {
		return Reply{}, &ProviderError{Temporary: true, Msg: "reply has no choices"}
	}
	model := res.Model
	if model == "" {
		model = m.model
	}
	return Reply{
		Content:      res.Choices[0].Message.Content,
		Model:        model,
		FinishReason: res.Choices[0].FinishReason,
		Usage: Usage{
			PromptTokens:     res.Usage.PromptTokens,
			CompletionTokens: res.Usage.CompletionTokens,
			TotalTokens:      res.Usage.TotalTokens,
		},
		Latency: latency,
	}, nil
}

// maxErrorText bounds the provider's message kept in an error.
const maxErrorText = 200

// providerError maps a client error to our typed errors. It never uses the client's own
// Error(), which prints the request URL and raw body.
func providerError(ctx context.Context, err error) error {
	var api *openai.Error
	if errors.As(err, &api) {
		if api.StatusCode == http.StatusTooManyRequests {
			var h http.Header
			if api.Response != nil {
				h = api.Response.Header
			}
			return &RateLimitedError{RetryAfter: RetryAfter(h, time.Now())}
		}
		msg := api.Message
		if msg == "" {
			msg = http.StatusText(api.StatusCode)
		}
		return &ProviderError{Status: api.StatusCode, Temporary: temporaryStatus(api.StatusCode), Msg: truncate(msg, maxErrorText)}
	}
	if errors.Is(err, netguard.ErrForbiddenAddress) || errors.Is(err, netguard.ErrInsecureScheme) {
		return &ProviderError{Msg: "ai.base_url refused by the SSRF guard (allow its range with ai.allow_cidrs)"}
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout() {
		return &ProviderError{Temporary: true, Msg: "timed out waiting for the model"}
	}
	return &ProviderError{Temporary: true, Msg: truncate(transportText(err), maxErrorText)}
}

// transportText is a transport error without the URL (url.Error prints it with its
// query, which might carry a key in some gateways).
func transportText(err error) string {
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
		err = u
	}
	return err.Error()
}

func temporaryStatus(status int) bool {
	return status >= 500 || status == http.StatusRequestTimeout || status == http.StatusConflict
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
