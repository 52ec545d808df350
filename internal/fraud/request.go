package fraud

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"regexp"
	"time"
	"unicode"
	"unicode/utf8"
)

// Bounds of request fields.
const (
	// MaxFutureSkew is how far ahead of the server's clock occurredAt may be.
	MaxFutureSkew = time.Hour
	// MaxAttributes caps the keys of attributes and signals.
	MaxAttributes = 100
	maxIDLength   = 128
	maxTextLength = 256
)

// earliestOccurredAt is the oldest accepted event time; older ones are typing mistakes.
var earliestOccurredAt = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

var (
	typePattern = regexp.MustCompile(`^[a-z][a-z0-9_.]{0,63}$`)
	keyPattern  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
)

// ParseEvaluate reads an evaluation body. kind says which subject key the endpoint takes
// ("transaction" or "event"); with "" (POST /api/lookup) either is accepted, exactly one.
// now is the server's clock: a missing occurredAt is now, and a later one is bounded by it.
// Every problem comes back in one *ValidationError.
func ParseEvaluate(raw []byte, kind Kind, now time.Time) (*EvaluateRequest, error) {
	p := parser{now: now}
	top := p.object(raw, "")
	if top == nil {
		return nil, p.err.orNil()
	}
	req := &EvaluateRequest{}
	subjects := 0
	for key, val := range top {
		switch k := Kind(key); {
		case (k == KindTransaction || k == KindEvent) && (kind == "" || kind == k):
			subjects++
			req.Event = p.event(val, k)
		case key == "deviceSessionId":
			req.DeviceSessionID = p.text(val, key, maxIDLength)
		case key == "attributes":
			req.Attributes = p.attributes(val, key)
		case key == "externalId":
			req.ExternalID = p.text(val, key, maxIDLength)
		default:
			p.err.add(key, "unknown field")
		}
	}
	switch {
	case subjects == 0 && kind == "":
		p.err.add("transaction", "send a transaction or an event")
	case subjects == 0:
		p.err.add(string(kind), "is required")
	case subjects > 1:
		p.err.add("event", "send a transaction or an event, not both")
	}
	if err := p.err.orNil(); err != nil {
		return nil, err
	}
	return req, nil
}

// ParseDeviceSession reads the body of POST /api/device-session.
func ParseDeviceSession(raw []byte) (*DeviceSessionRequest, error) {
	p := parser{}
	top := p.object(raw, "")
	if top == nil {
		return nil, p.err.orNil()
	}
	req := &DeviceSessionRequest{}
	for key, val := range top {
		switch key {
		case "deviceId":
			req.DeviceID = p.text(val, key, maxIDLength)
		case "customerId":
			req.CustomerID = p.text(val, key, maxIDLength)
		case "ip":
			req.IP = p.ip(val, key)
		case "country":
			req.Country = p.country(val, key)
		case "signals":
			req.Signals = p.attributes(val, key)
		case "externalId":
			req.ExternalID = p.text(val, key, maxIDLength)
		default:
			p.err.add(key, "unknown field")
		}
	}
	if _, ok := top["deviceId"]; !ok {
		p.err.add("deviceId", "is required")
	}
	if err := p.err.orNil(); err != nil {
		return nil, err
	}
	return req, nil
}

// parser collects the field errors of one body.
type parser struct {
	now time.Time
	err ValidationError
}

// object decodes raw as a JSON object; nil (with the error recorded) when it is not one.
func (p *parser) object(raw []byte, path string) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &m) != nil {
		p.err.add(orBody(path), "must be a JSON object")
		return nil
	}
	return m
}

func orBody(path string) string {
	if path == "" {
		return "body"
	}
	return path
}

// event reads the transaction or event object at key.
func (p *parser) event(raw json.RawMessage, kind Kind) Event {
	ev := Event{Kind: kind, OccurredAt: p.now.UTC().Truncate(time.Millisecond)}
	m := p.object(raw, string(kind))
	if m == nil {
		return ev
	}
	at := func(f string) string { return string(kind) + "." + f }
	var amount json.RawMessage
	for key, val := range m {
		switch key {
		case "id":
			ev.ID = p.text(val, at(key), maxIDLength)
		case "type":
			ev.Type = p.slug(val, at(key), "card_payment")
		case "amount":
			amount = val
		case "currency":
			if ev.Amount.Currency = p.text(val, at(key), 3); ev.Amount.Currency != "" && !ValidCurrency(ev.Amount.Currency) {
				p.err.add(at(key), "must be an ISO 4217 currency code in upper case, such as EUR")
			}
		case "occurredAt":
			ev.OccurredAt = p.time(val, at(key))
		case "customerId":
			ev.CustomerID = p.text(val, at(key), maxIDLength)
		case "accountId":
			ev.AccountID = p.text(val, at(key), maxIDLength)
		case "counterparty":
			ev.Counterparty = p.text(val, at(key), maxTextLength)
		case "channel":
			ev.Channel = p.slug(val, at(key), "web")
		case "country":
			ev.Country = p.country(val, at(key))
		case "ip":
			ev.IP = p.ip(val, at(key))
		default:
			p.err.add(at(key), "unknown field")
		}
	}
	required := []string{"type", "customerId"}
	if kind == KindTransaction {
		required = append(required, "id", "amount", "currency")
	}
	for _, f := range required {
		if _, ok := m[f]; !ok {
			p.err.add(at(f), "is required")
		}
	}
	_, hasCurrency := m["currency"]
	switch {
	case amount != nil:
		ev.HasAmount = true
		ev.Amount.Minor = p.amount(amount, at("amount"), ev.Amount.Currency)
		if !hasCurrency && kind == KindEvent {
			p.err.add(at("currency"), "is required with an amount")
		}
	case hasCurrency && kind == KindEvent:
		p.err.add(at("amount"), "is required with a currency")
	}
	return ev
}

// text reads a string of at most max bytes without control characters; "" when it is not one.
func (p *parser) text(raw json.RawMessage, path string, limit int) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		p.err.add(path, "must be a string")
		return ""
	}
	switch {
	case s == "":
		p.err.add(path, "must not be empty")
	case len(s) > limit:
		p.err.add(path, "must be at most %d bytes long", limit)
	case !utf8.ValidString(s) || containsControl(s):
		p.err.add(path, "must be printable text")
	default:
		return s
	}
	return ""
}

func containsControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return true
		}
	}
	return false
}

// slug reads a lower-case name such as a type or a channel.
func (p *parser) slug(raw json.RawMessage, path, example string) string {
	s := p.text(raw, path, 64)
	if s != "" && !typePattern.MatchString(s) {
		p.err.add(path, "must be lower case letters, digits, '_' and '.', starting with a letter (for example %s)", example)
		return ""
	}
	return s
}

// amount reads a money amount: a JSON number, never a string, NaN, negative zero or a value
// with more decimals than the currency.
func (p *parser) amount(raw json.RawMessage, path, currency string) int64 {
	text := string(bytes.TrimSpace(raw))
	switch {
	case text == "null":
		p.err.add(path, "is required")
		return 0
	case len(text) > 0 && text[0] == '"':
		p.err.add(path, "must be a JSON number, not a string (write 12.50, not \"12.50\")")
		return 0
	}
	minor, err := parseAmount(text, currency)
	if err != nil {
		p.err.add(path, "%s", err.Error())
	}
	return minor
}

// time reads an RFC 3339 timestamp with its offset, neither before 2000 nor more than
// MaxFutureSkew ahead of the server's clock.
func (p *parser) time(raw json.RawMessage, path string) time.Time {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		p.err.add(path, "must be an RFC 3339 timestamp string such as 2026-01-31T12:00:00Z")
		return p.now
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	switch {
	case err != nil:
		p.err.add(path, "must be an RFC 3339 timestamp such as 2026-01-31T12:00:00Z")
	case t.Before(earliestOccurredAt):
		p.err.add(path, "must not be before 2000-01-01")
	case t.After(p.now.Add(MaxFutureSkew)):
		p.err.add(path, "must not be more than %s in the future", MaxFutureSkew)
	default:
		return t.UTC().Truncate(time.Millisecond)
	}
	return p.now
}

// ip reads an IPv4 or IPv6 address and returns it in canonical form.
func (p *parser) ip(raw json.RawMessage, path string) string {
	s := p.text(raw, path, 64)
	if s == "" {
		return ""
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		p.err.add(path, "must be an IPv4 or IPv6 address")
		return ""
	}
	return a.Unmap().String()
}

// country reads an ISO 3166-1 alpha-2 code.
func (p *parser) country(raw json.RawMessage, path string) string {
	s := p.text(raw, path, 2)
	if s != "" && !countryCodes[s] {
		p.err.add(path, "must be an ISO 3166-1 alpha-2 country code in upper case, such as DE")
		return ""
	}
	return s
}

// attributes reads a flat-keyed object of free values (rules read attributes.<key>).
func (p *parser) attributes(raw json.RawMessage, path string) map[string]any {
	var m map[string]any
	if string(bytes.TrimSpace(raw)) == "null" || json.Unmarshal(raw, &m) != nil || m == nil {
		p.err.add(path, "must be a JSON object")
		return nil
	}
	if len(m) > MaxAttributes {
		p.err.add(path, "must have at most %d keys", MaxAttributes)
		return nil
	}
	for k := range m {
		if !keyPattern.MatchString(k) {
			p.err.add(path, "key %q must be letters, digits and '_', starting with a letter or '_' (rules read it as %s.<key>)", truncate(k, 40), path)
			return nil
		}
	}
	return m
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
