package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Scheme is the only signature scheme: the header value is Scheme + "=" + hex.
const Scheme = "sha256"

// SecretPrefix starts every subscription secret.
const SecretPrefix = "svc_whsec_"

// Sign returns the signature header value for body: "sha256=" followed by the
// lowercase hex HMAC-SHA256 of the raw body bytes keyed with secret (the whole
// secret string, prefix included, as bytes).
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return Scheme + "=" + hex.EncodeToString(m.Sum(nil))
}

// SignStandard returns the Standard Webhooks signature header value
// "v1,<base64 HMAC-SHA256 of id.timestamp.body>" keyed with secret.
func SignStandard(secret []byte, id string, timestamp int64, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(strconv.FormatInt(timestamp, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// StandardSecret returns secret in the form Standard Webhooks libraries take
// ("whsec_" + base64 of the key bytes), for receivers that verify the
// webhook-signature header with such a library instead of Verify.
func StandardSecret(secret []byte) string {
	return "whsec_" + base64.StdEncoding.EncodeToString(secret)
}

// NewSecret returns a fresh subscription secret: SecretPrefix followed by 32
// random bytes in unpadded base64url (43 characters).
func NewSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("webhook: generate secret: %w", err)
	}
	return SecretPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// Message describes one delivery attempt, for Headers.
type Message struct {
	// EventID is the event id (evt_...); it is also the Standard Webhooks webhook-id.
	EventID string
	// Event is the event name.
	Event string
	// DeliveryID is the delivery id (whd_...).
	DeliveryID string
	// Attempt is the attempt number, from 1.
	Attempt int
	// Timestamp is the send time; headers carry it in Unix seconds.
	Timestamp time.Time
	// Prefixes are the product header prefixes sent besides the unified one (X-Orch-, X-DocInt-).
	Prefixes []string
	// UserAgent, when set, is sent as the User-Agent header.
	UserAgent string
}

// Headers returns every header of a delivery request of body signed with
// secret: Content-Type, User-Agent (when given), the unified X-Service-* set,
// the same set under each product prefix, and the Standard Webhooks headers.
func Headers(secret []byte, m Message, body []byte) http.Header {
	ts := m.Timestamp.Unix()
	tsText := strconv.FormatInt(ts, 10)
	sig := Sign(secret, body)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if m.UserAgent != "" {
		h.Set("User-Agent", m.UserAgent)
	}
	for _, p := range append([]string{UnifiedPrefix}, m.Prefixes...) {
		h.Set(p+SuffixEvent, m.Event)
		h.Set(p+SuffixDelivery, m.DeliveryID)
		h.Set(p+SuffixSignature, sig)
		h.Set(p+SuffixTimestamp, tsText)
		h.Set(p+SuffixAttempt, strconv.Itoa(m.Attempt))
	}
	h.Set(HeaderWebhookID, m.EventID)
	h.Set(HeaderWebhookTimestamp, tsText)
	h.Set(HeaderWebhookSignature, SignStandard(secret, m.EventID, ts, body))
	return h
}
