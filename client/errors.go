package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// APIError is a failure envelope (SPEC 2.6): the status, the message and, where present, the
// field errors of a 400 or the bucket and limit of a 429.
type APIError struct {
	Status      int
	Message     string              `json:"error"`
	FieldErrors map[string][]string `json:"-"`
	Bucket      string              `json:"bucket,omitempty"`
	Limit       int                 `json:"limit,omitempty"`
	RequestID   string              `json:"-"`
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "svc: %d %s", e.Status, e.Message)
	for f, msgs := range e.FieldErrors {
		fmt.Fprintf(&b, "; %s: %s", f, strings.Join(msgs, ", "))
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " (request %s)", e.RequestID)
	}
	return b.String()
}

// Check returns nil for a 2xx answer and an *APIError for any other, read from its body.
// Every generated ...WithResponse result has the two arguments: Check(r.HTTPResponse, r.Body).
func Check(res *http.Response, body []byte) error {
	if res == nil {
		return &APIError{Message: "no response"}
	}
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		return nil
	}
	e := &APIError{Status: res.StatusCode, RequestID: res.Header.Get("x-service-request-id")}
	var env struct {
		Error   string `json:"error"`
		Bucket  string `json:"bucket"`
		Limit   int    `json:"limit"`
		Details struct {
			FieldErrors map[string][]string `json:"fieldErrors"`
		} `json:"details"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error != "" {
		e.Message, e.Bucket, e.Limit, e.FieldErrors = env.Error, env.Bucket, env.Limit, env.Details.FieldErrors
	} else {
		e.Message = http.StatusText(res.StatusCode)
	}
	return e
}
