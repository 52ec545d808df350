// Package aitest is an OpenAI-compatible chat-completions server for tests: the model is
// outside our control, so tests script its answers and read what it was sent.
package aitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Reply is one scripted answer of the server.
type Reply struct {
	// Content is the assistant message (status 200).
	Content string
	// Status, when not 0 or 200, answers with this status and an OpenAI-style error body.
	Status int
	// Header is added to the response (e.g. Retry-After).
	Header http.Header
	// Delay is waited before answering (or until the client gives up).
	Delay time.Duration
	// FinishReason defaults to "stop".
	FinishReason string
	// PromptTokens and CompletionTokens are reported in usage (defaults 10 and 5).
	PromptTokens, CompletionTokens int64
}

// Request is what the server received in one call.
type Request struct {
	Authorization string
	// Body is the raw JSON body.
	Body []byte
	// Parsed is Body decoded.
	Parsed struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Temperature    *float64        `json:"temperature"`
		MaxTokens      *int            `json:"max_tokens"`
		ResponseFormat json.RawMessage `json:"response_format"`
	}
}

// Server is the fake provider. Replies are used in order; when they run out, Fallback
// answers (a fixed "ok" when nil).
type Server struct {
	*httptest.Server
	// Model is the model name the server reports.
	Model string

	mu       sync.Mutex
	replies  []Reply
	requests []Request
	// Fallback computes the answer once the scripted replies are used up.
	Fallback func(Request) Reply
}

// New starts a server on loopback; Close it when done (t.Cleanup(s.Close)).
func New(replies ...Reply) *Server {
	s := &Server{Model: "test-model", replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// BaseURL is the API root to configure as ai.base_url.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Script appends replies.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Requests returns the calls received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Received is every byte the server was sent, bodies and Authorization headers, for
// tests that prove a secret never reached the model.
func (s *Server) Received() string {
	var b strings.Builder
	for _, r := range s.Requests() {
		b.WriteString(r.Authorization)
		b.WriteByte('\n')
		b.Write(r.Body)
		b.WriteByte('\n')
	}
	return b.String()
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	req := Request{Authorization: r.Header.Get("Authorization"), Body: body}
	if err := json.Unmarshal(body, &req.Parsed); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	var rep Reply
	switch {
	case len(s.replies) > 0:
		rep, s.replies = s.replies[0], s.replies[1:]
	case s.Fallback != nil:
		rep = s.Fallback(req)
	default:
		rep = Reply{Content: "ok"}
	}
	s.mu.Unlock()
	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, vs := range rep.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.Status != 0 && rep.Status != http.StatusOK {
		w.WriteHeader(rep.Status)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"test_error","code":"e%d"}}`, http.StatusText(rep.Status), rep.Status)
		return
	}
	pt, ct := rep.PromptTokens, rep.CompletionTokens
	if pt == 0 && ct == 0 {
		pt, ct = 10, 5
	}
	finish := rep.FinishReason
	if finish == "" {
		finish = "stop"
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": time.Now().Unix(), "model": s.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": rep.Content}}},
		"usage": map[string]any{"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct},
	})
}
