package client

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
)

// NewExternalID returns a fresh random externalId (SPEC 4.7). Put it in a POST's body once and
// reuse it for every retry of that POST: the server answers a repeat with the first result
// (Idempotent reports it), and the client's retries of a failed POST are safe only with one.
func NewExternalID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("go-%x", b)
}

// Idempotent reports whether an answer is a replay of an earlier request with the same
// externalId (the envelope's top-level idempotent flag, SPEC 4.7).
func Idempotent(body []byte) bool {
	var env struct {
		Idempotent bool `json:"idempotent"`
	}
	return json.Unmarshal(body, &env) == nil && env.Idempotent
}
