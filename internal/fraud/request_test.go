package fraud

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var testNow = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

const goodTransaction = `{"transaction": {"id": "t1", "amount": 12.5, "currency": "EUR", "type": "card_payment",
	"occurredAt": "2026-11-23T11:59:00.123+01:00", "customerId": "cus_1", "accountId": "acc_1",
	"counterparty": "DE89 3704 0044 0532 0130 00", "channel": "web", "country": "DE", "ip": "::ffff:10.0.0.1"},
	"deviceSessionId": "dvs_1", "attributes": {"mcc": "5732", "score": 3}, "externalId": "x-1"}`

func TestParseEvaluateAcceptsATransaction(t *testing.T) {
	req, err := ParseEvaluate([]byte(goodTransaction), KindTransaction, testNow)
	if err != nil {
		t.Fatal(err)
	}
	ev := req.Event
	if ev.Amount != (Amount{Minor: 1250, Currency: "EUR"}) || !ev.HasAmount || ev.Amount.String() != "12.50 EUR" {
		t.Errorf("amount = %+v", ev.Amount)
	}
	if want := time.Date(2026, 11, 23, 10, 59, 0, 123e6, time.UTC); !ev.OccurredAt.Equal(want) || ev.OccurredAt.Location() != time.UTC {
		t.Errorf("occurredAt = %s, want %s in UTC", ev.OccurredAt, want)
	}
	if ev.IP != "10.0.0.1" || ev.Country != "DE" || ev.Kind != KindTransaction || ev.Type != "card_payment" {
		t.Errorf("event = %+v", ev)
	}
	if req.DeviceSessionID != "dvs_1" || req.ExternalID != "x-1" || req.Attributes["mcc"] != "5732" {
		t.Errorf("request = %+v", req)
	}
}

func TestParseEvaluateEventAndDefaults(t *testing.T) {
	req, err := ParseEvaluate([]byte(`{"event": {"type": "login", "customerId": "c"}}`), KindEvent, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if req.Event.HasAmount || !req.Event.OccurredAt.Equal(testNow) || req.Event.Kind != KindEvent {
		t.Errorf("event = %+v", req.Event)
	}
	// Lookup takes either subject.
	if _, err := ParseEvaluate([]byte(`{"event": {"type": "payout", "customerId": "c", "amount": 1000, "currency": "JPY"}}`), "", testNow); err != nil {
		t.Error(err)
	}
	if _, err := ParseEvaluate([]byte(goodTransaction), "", testNow); err != nil {
		t.Error(err)
	}
}

// TestParseEvaluateRefusesBadInput checks that each kind of bad input is refused with a field
// error at the right path that says what is wrong.
func TestParseEvaluateRefusesBadInput(t *testing.T) {
	tx := func(fields string) string {
		return `{"transaction": {"id": "t1", "type": "card_payment", "customerId": "c", ` + fields + `}}`
	}
	cases := []struct {
		name, body string
		kind       Kind
		path, want string
	}{
		{"amount as a string", tx(`"amount": "12.50", "currency": "EUR"`), KindTransaction, "transaction.amount", "not a string"},
		{"NaN", tx(`"amount": "NaN", "currency": "EUR"`), KindTransaction, "transaction.amount", "not a string"},
		{"bare NaN", tx(`"amount": NaN, "currency": "EUR"`), KindTransaction, "body", "JSON object"},
		{"negative zero", tx(`"amount": -0, "currency": "EUR"`), KindTransaction, "transaction.amount", "negative zero"},
		{"negative zero with decimals", tx(`"amount": -0.00, "currency": "EUR"`), KindTransaction, "transaction.amount", "negative zero"},
		{"negative", tx(`"amount": -5, "currency": "EUR"`), KindTransaction, "transaction.amount", "negative"},
		{"too many decimals", tx(`"amount": 1.005, "currency": "EUR"`), KindTransaction, "transaction.amount", "more decimal places than EUR allows (2)"},
		{"yen has no decimals", tx(`"amount": 100.5, "currency": "JPY"`), KindTransaction, "transaction.amount", "JPY allows (0)"},
		{"huge exponent", tx(`"amount": 1e999, "currency": "EUR"`), KindTransaction, "transaction.amount", "plain decimal"},
		{"large exponent", tx(`"amount": 1e99, "currency": "EUR"`), KindTransaction, "transaction.amount", "too large"},
		{"too large", tx(`"amount": 1e20, "currency": "EUR"`), KindTransaction, "transaction.amount", "too large"},
		{"null amount", tx(`"amount": null, "currency": "EUR"`), KindTransaction, "transaction.amount", "required"},
		{"missing amount", tx(`"currency": "EUR"`), KindTransaction, "transaction.amount", "required"},
		{"lower-case currency", tx(`"amount": 1, "currency": "eur"`), KindTransaction, "transaction.currency", "ISO 4217"},
		{"made-up currency", tx(`"amount": 1, "currency": "ABC"`), KindTransaction, "transaction.currency", "ISO 4217"},
		{"gold is not a currency here", tx(`"amount": 1, "currency": "XAU"`), KindTransaction, "transaction.currency", "ISO 4217"},
		{"far future", tx(`"amount": 1, "currency": "EUR", "occurredAt": "2999-01-01T00:00:00Z"`), KindTransaction, "transaction.occurredAt", "in the future"},
		{"two hours ahead", tx(`"amount": 1, "currency": "EUR", "occurredAt": "2026-11-23T14:00:01Z"`), KindTransaction, "transaction.occurredAt", "in the future"},
		{"ancient", tx(`"amount": 1, "currency": "EUR", "occurredAt": "1999-12-31T23:59:59Z"`), KindTransaction, "transaction.occurredAt", "before 2000"},
		{"no zone", tx(`"amount": 1, "currency": "EUR", "occurredAt": "2026-11-23T11:00:00"`), KindTransaction, "transaction.occurredAt", "RFC 3339"},
		{"bad country", tx(`"amount": 1, "currency": "EUR", "country": "XX"`), KindTransaction, "transaction.country", "ISO 3166-1"},
		{"bad ip", tx(`"amount": 1, "currency": "EUR", "ip": "300.1.1.1"`), KindTransaction, "transaction.ip", "IPv4 or IPv6"},
		{"bad type", `{"transaction": {"id": "t1", "type": "Card Payment", "customerId": "c", "amount": 1, "currency": "EUR"}}`, KindTransaction, "transaction.type", "lower case"},
		{"unknown field", tx(`"amount": 1, "currency": "EUR", "colour": "red"`), KindTransaction, "transaction.colour", "unknown field"},
		{"number as id", `{"transaction": {"id": 5, "type": "p", "customerId": "c", "amount": 1, "currency": "EUR"}}`, KindTransaction, "transaction.id", "must be a string"},
		{"control characters", tx(`"amount": 1, "currency": "EUR", "counterparty": "a\u0000b"`), KindTransaction, "transaction.counterparty", "printable"},
		{"missing customer", `{"transaction": {"id": "t", "type": "p", "amount": 1, "currency": "EUR"}}`, KindTransaction, "transaction.customerId", "required"},
		{"event body on the transaction endpoint", `{"event": {"type": "login", "customerId": "c"}}`, KindTransaction, "event", "unknown field"},
		{"no subject", `{}`, KindTransaction, "transaction", "required"},
		{"both subjects", `{"event": {"type": "login", "customerId": "c"}, ` + tx(`"amount": 1, "currency": "EUR"`)[1:], "", "event", "not both"},
		{"event amount without currency", `{"event": {"type": "payout", "customerId": "c", "amount": 1}}`, KindEvent, "event.currency", "required with an amount"},
		{"array body", `[]`, KindEvent, "body", "JSON object"},
		{"attributes not an object", `{"event": {"type": "login", "customerId": "c"}, "attributes": [1]}`, KindEvent, "attributes", "JSON object"},
		{"attribute key rules cannot read", `{"event": {"type": "login", "customerId": "c"}, "attributes": {"a-b": 1}}`, KindEvent, "attributes", "letters, digits"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := ParseEvaluate([]byte(c.body), c.kind, testNow)
			var ve *ValidationError
			if !errors.As(err, &ve) || req != nil {
				t.Fatalf("got %+v, %v; want a validation error", req, err)
			}
			msgs := strings.Join(ve.Fields[c.path], " | ")
			if !strings.Contains(msgs, c.want) {
				t.Errorf("fieldErrors[%s] = %q, want it to say %q (all: %v)", c.path, msgs, c.want, ve.Fields)
			}
		})
	}
}

func TestParseDeviceSession(t *testing.T) {
	req, err := ParseDeviceSession([]byte(`{"deviceId": "fp_1", "customerId": "c", "ip": "2001:db8::1", "country": "FR", "signals": {"tz": "Europe/Paris"}}`))
	if err != nil || req.DeviceID != "fp_1" || req.IP != "2001:db8::1" || req.Signals["tz"] != "Europe/Paris" {
		t.Fatalf("%+v, %v", req, err)
	}
	_, err = ParseDeviceSession([]byte(`{"ip": "x"}`))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Fields["deviceId"]) == 0 || len(ve.Fields["ip"]) == 0 {
		t.Errorf("want deviceId and ip errors, got %v", err)
	}
}

// FuzzParseEvaluate feeds arbitrary bodies to the request parser: it never panics, answers
// either a request or a *ValidationError, and an accepted request keeps the parser's promises.
func FuzzParseEvaluate(f *testing.F) {
	for _, seed := range []string{
		goodTransaction, `{"event": {"type": "login", "customerId": "c"}}`, "", "null", "{}", "[]", `{"transaction": null}`,
		`{"transaction": {"amount": -0.0, "currency": "JPY"}}`, `{"transaction": {"amount": 1e-400}}`, `{"transaction": {"amount": 123456789012345678901234567890}}`,
		`{"event": {"type": "a", "customerId": "c", "amount": 0.001, "currency": "BHD"}}`, `{"attributes": {"": 1}}`,
		`{"transaction": {"occurredAt": "9999-12-31T23:59:59.999999999+14:00"}}`, "{\"transaction\": {\"id\": \"\xff\"}}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, kind := range []Kind{KindTransaction, KindEvent, ""} {
			req, err := ParseEvaluate(raw, kind, testNow)
			if err != nil {
				var ve *ValidationError
				if !errors.As(err, &ve) || len(ve.Fields) == 0 || req != nil {
					t.Fatalf("error %v is not a validation error with fields", err)
				}
				continue
			}
			ev := req.Event
			if ev.HasAmount && (ev.Amount.Minor < 0 || ev.Amount.Minor > MaxAmountMinor || !ValidCurrency(ev.Amount.Currency)) {
				t.Fatalf("accepted amount %+v", ev.Amount)
			}
			if ev.OccurredAt.After(testNow.Add(MaxFutureSkew)) || ev.OccurredAt.Before(earliestOccurredAt) {
				t.Fatalf("accepted occurredAt %s", ev.OccurredAt)
			}
			if ev.CustomerID == "" || ev.Type == "" || (kind == KindTransaction && (ev.ID == "" || !ev.HasAmount)) {
				t.Fatalf("accepted an incomplete event %+v", ev)
			}
		}
		_, _ = ParseDeviceSession(raw)
	})
}

func TestValidSubject(t *testing.T) {
	for s, want := range map[string]bool{"transaction": true, "login": true, "card_change": true, "event": false, "Login": false, "": false} {
		if ValidSubject(s) != want {
			t.Errorf("ValidSubject(%q) = %v", s, !want)
		}
	}
}
