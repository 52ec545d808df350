package webhook

import (
	"crypto/hmac"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Errors of Verify; every error it returns wraps ErrVerification and one of the others.
var (
	// ErrVerification is wrapped by every Verify failure.
	ErrVerification = errors.New("webhook verification failed")
	// ErrMissingSignature: no signature header (unified or product-prefixed) is present.
	ErrMissingSignature = errors.New("no signature header")
	// ErrScheme: a signature header does not start with "sha256=".
	ErrScheme = errors.New("signature scheme is not sha256")
	// ErrSignature: a signature does not match the body and secret.
	ErrSignature = errors.New("signature mismatch")
	// ErrTimestamp: the Standard Webhooks timestamp is missing, malformed or outside the tolerance.
	ErrTimestamp = errors.New("timestamp outside tolerance")
)

// DefaultTolerance is the Standard Webhooks timestamp tolerance used when
// WithStandardWebhooks is given zero.
const DefaultTolerance = 5 * time.Minute

type verifyConfig struct {
	prefixes  []string
	standard  bool
	tolerance time.Duration
	now       func() time.Time
}

// Option changes what Verify checks.
type Option func(*verifyConfig)

// WithStandardWebhooks makes Verify also require a valid Standard Webhooks
// signature (webhook-id, webhook-timestamp, webhook-signature) whose timestamp
// is within tolerance of now (DefaultTolerance if zero), which rejects replays
// of old deliveries.
func WithStandardWebhooks(tolerance time.Duration) Option {
	return func(c *verifyConfig) {
		c.standard = true
		if tolerance <= 0 {
			tolerance = DefaultTolerance
		}
		c.tolerance = tolerance
	}
}

// WithPrefixes adds header prefixes whose -Signature header Verify accepts,
// for products still on their own prefix (for example "X-Bank-").
func WithPrefixes(prefixes ...string) Option {
	return func(c *verifyConfig) { c.prefixes = append(c.prefixes, prefixes...) }
}

// WithClock sets the clock the timestamp tolerance is measured against (tests).
func WithClock(now func() time.Time) Option {
	return func(c *verifyConfig) { c.now = now }
}

// Verify checks that body, the raw request body bytes, was signed with secret.
// It reads the signature from the unified X-Service-Signature header and from
// each product-prefixed one (X-Orch-, X-DocInt-, and those added with
// WithPrefixes): at least one must be present and every one present must be
// exactly "sha256=<lowercase hex HMAC-SHA256 of body>". Comparisons are
// constant-time. With WithStandardWebhooks it also checks webhook-signature and
// the timestamp tolerance. Call it before parsing the body.
func Verify(secret []byte, header http.Header, body []byte, opts ...Option) error {
	c := verifyConfig{prefixes: append([]string{UnifiedPrefix}, ProductPrefixes()...), now: time.Now}
	for _, o := range opts {
		o(&c)
	}
	want := []byte(Sign(secret, body))
	found := 0
	for _, p := range c.prefixes {
		name := p + SuffixSignature
		for _, v := range header.Values(name) {
			found++
			if !strings.HasPrefix(v, Scheme+"=") {
				return fmt.Errorf("%w: %s: %w", ErrVerification, name, ErrScheme)
			}
			if !hmac.Equal([]byte(v), want) {
				return fmt.Errorf("%w: %s: %w", ErrVerification, name, ErrSignature)
			}
		}
	}
	if found == 0 {
		return fmt.Errorf("%w: %w", ErrVerification, ErrMissingSignature)
	}
	if c.standard {
		return verifyStandard(secret, header, body, c)
	}
	return nil
}

// verifyStandard checks the Standard Webhooks headers: the timestamp within
// tolerance and at least one "v1," signature in webhook-signature matching.
func verifyStandard(secret []byte, header http.Header, body []byte, c verifyConfig) error {
	id := header.Get(HeaderWebhookID)
	if id == "" {
		return fmt.Errorf("%w: %s: %w", ErrVerification, HeaderWebhookID, ErrMissingSignature)
	}
	raw := header.Get(HeaderWebhookTimestamp)
	ts, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || strconv.FormatInt(ts, 10) != raw {
		return fmt.Errorf("%w: %s is not Unix seconds: %w", ErrVerification, HeaderWebhookTimestamp, ErrTimestamp)
	}
	now := c.now().Unix()
	tol := int64(c.tolerance / time.Second)
	if ts < now-tol || ts > now+tol {
		return fmt.Errorf("%w: %s %d is more than %s from now: %w", ErrVerification, HeaderWebhookTimestamp, ts, c.tolerance, ErrTimestamp)
	}
	want := []byte(SignStandard(secret, id, ts, body))
	sigs := header.Values(HeaderWebhookSignature)
	if len(sigs) == 0 {
		return fmt.Errorf("%w: %s: %w", ErrVerification, HeaderWebhookSignature, ErrMissingSignature)
	}
	ok := false
	for _, v := range sigs {
		for _, s := range strings.Fields(v) {
			if hmac.Equal([]byte(s), want) {
				ok = true
			}
		}
	}
	if !ok {
		return fmt.Errorf("%w: %s: %w", ErrVerification, HeaderWebhookSignature, ErrSignature)
	}
	return nil
}
