package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"
)

// Config is how New builds a client; the zero value of every field but Key has a default.
type Config struct {
	// Key is the API key, svc_sk_<env>_<secret>. It is sent as a Bearer token and never logged.
	Key string
	// HTTPClient makes the requests (http.DefaultClient when nil). Give it a timeout.
	HTTPClient *http.Client
	// Retry is the retry policy (DefaultRetry when nil; &RetryPolicy{} never retries).
	Retry *RetryPolicy
	// UserAgent is sent as User-Agent ("svc-go-client" when empty).
	UserAgent string
}

// New returns a client of the svc API at baseURL (e.g. http://127.0.0.1:8080) that
// authenticates with cfg.Key and retries as SPEC 7.4 recommends.
func New(baseURL string, cfg Config) (*ClientWithResponses, error) {
	if !strings.HasPrefix(cfg.Key, "svc_sk_") {
		return nil, errors.New("client: the key must look like svc_sk_<env>_<secret>")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	policy := DefaultRetry
	if cfg.Retry != nil {
		policy = *cfg.Retry
	}
	ua := cfg.UserAgent
	if ua == "" {
		ua = "svc-go-client"
	}
	key := cfg.Key
	return NewClientWithResponses(baseURL,
		WithHTTPClient(&retrying{doer: hc, policy: policy}),
		WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("User-Agent", ua)
			return nil
		}))
}
