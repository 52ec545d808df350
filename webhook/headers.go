// Package webhook signs and verifies the service's webhook deliveries.
//
// Receivers use Verify on the raw request body before parsing it; the service
// uses Sign and Headers when it sends a delivery. The signature is
// "sha256=<lowercase hex HMAC-SHA256 of the raw body>" keyed with the
// subscription secret, sent in the unified X-Service-Signature header and, during
// the header migration, in the product-prefixed header (X-Orch-, X-DocInt-, X-Identity-,
// X-BankStatement-).
// Every delivery also carries the Standard Webhooks headers (webhook-id,
// webhook-timestamp, webhook-signature) computed with the same secret, which
// lets receivers reject replays by timestamp.
package webhook

// Header prefixes: the unified one and the product ones still sent during the migration.
const (
	// UnifiedPrefix is the prefix every product is migrating to.
	UnifiedPrefix = "X-Service-"
	// OrchPrefix is the orchestration product's header prefix.
	OrchPrefix = "X-Orch-"
	// DocIntPrefix is the document intelligence product's header prefix.
	DocIntPrefix = "X-DocInt-"
	// IdentityPrefix is the identity verification product's header prefix (SPEC 6.1).
	IdentityPrefix = "X-Identity-"
	// BankStatementPrefix is the bank statement analysis product's header prefix (SPEC 6.1).
	BankStatementPrefix = "X-BankStatement-"
)

// Header suffixes; a full header name is a prefix plus one of these.
const (
	// SuffixEvent names the header carrying the event name.
	SuffixEvent = "Event"
	// SuffixDelivery names the header carrying the delivery id (whd_...).
	SuffixDelivery = "Delivery"
	// SuffixSignature names the header carrying "sha256=<hex>".
	SuffixSignature = "Signature"
	// SuffixTimestamp names the header carrying the send time in Unix seconds.
	SuffixTimestamp = "Timestamp"
	// SuffixAttempt names the header carrying the attempt number, from 1.
	SuffixAttempt = "Attempt"
)

// Unified header names.
const (
	// HeaderEvent is the unified event-name header.
	HeaderEvent = UnifiedPrefix + SuffixEvent
	// HeaderDelivery is the unified delivery-id header.
	HeaderDelivery = UnifiedPrefix + SuffixDelivery
	// HeaderSignature is the unified signature header.
	HeaderSignature = UnifiedPrefix + SuffixSignature
	// HeaderTimestamp is the unified timestamp header (Unix seconds).
	HeaderTimestamp = UnifiedPrefix + SuffixTimestamp
	// HeaderAttempt is the unified attempt-number header.
	HeaderAttempt = UnifiedPrefix + SuffixAttempt
)

// Standard Webhooks header names (https://www.standardwebhooks.com).
const (
	// HeaderWebhookID carries the message id; the service sends the event id (evt_...).
	HeaderWebhookID = "webhook-id"
	// HeaderWebhookTimestamp carries the send time in Unix seconds.
	HeaderWebhookTimestamp = "webhook-timestamp"
	// HeaderWebhookSignature carries "v1,<base64 HMAC-SHA256 of id.timestamp.body>".
	HeaderWebhookSignature = "webhook-signature"
)

// ProductPrefixes lists the product header prefixes Verify accepts besides the unified one.
func ProductPrefixes() []string {
	return []string{OrchPrefix, DocIntPrefix, IdentityPrefix, BankStatementPrefix}
}
