package webhook

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

type vector struct {
	Name            string            `json:"name"`
	Secret          string            `json:"secret"`
	Body            string            `json:"body"`
	EventID         string            `json:"eventId"`
	Event           string            `json:"event"`
	DeliveryID      string            `json:"deliveryId"`
	Attempt         int               `json:"attempt"`
	Timestamp       int64             `json:"timestamp"`
	ProductPrefixes []string          `json:"productPrefixes"`
	ExpectedHeaders map[string]string `json:"expectedHeaders"`
}

func loadVectors(t *testing.T) []vector {
	t.Helper()
	b, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Vectors []vector `json:"vectors"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Vectors) == 0 {
		t.Fatal("no vectors")
	}
	return doc.Vectors
}

// TestVectors checks Headers, Sign and Verify against testdata/vectors.json,
// whose expected values were computed with an independent HMAC implementation.
func TestVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			secret, body := []byte(v.Secret), []byte(v.Body)
			h := Headers(secret, Message{
				EventID: v.EventID, Event: v.Event, DeliveryID: v.DeliveryID, Attempt: v.Attempt,
				Timestamp: time.Unix(v.Timestamp, 0), Prefixes: v.ProductPrefixes,
			}, body)
			if len(h) != len(v.ExpectedHeaders) {
				t.Errorf("Headers set %d headers, vector lists %d: %v", len(h), len(v.ExpectedHeaders), h)
			}
			for name, want := range v.ExpectedHeaders {
				if got := h.Values(name); len(got) != 1 || got[0] != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if got := Sign(secret, body); got != v.ExpectedHeaders[HeaderSignature] {
				t.Errorf("Sign = %q", got)
			}
			now := func() time.Time { return time.Unix(v.Timestamp+30, 0) }
			if err := Verify(secret, h, body, WithStandardWebhooks(0), WithClock(now)); err != nil {
				t.Errorf("Verify of the vector's own headers: %v", err)
			}
		})
	}
}

func signedHeader(secret, body []byte, ts int64, prefixes ...string) http.Header {
	return Headers(secret, Message{EventID: "evt_1", Event: "webhook.test", DeliveryID: "whd_1", Attempt: 1,
		Timestamp: time.Unix(ts, 0), Prefixes: prefixes}, body)
}

func TestVerify(t *testing.T) {
	secret := []byte("svc_whsec_test")
	body := []byte(`{"id":"evt_1","event":"webhook.test"}`)
	const ts = 1767323045
	at := func(sec int64) Option { return WithClock(func() time.Time { return time.Unix(sec, 0) }) }
	only := func(name, value string) http.Header {
		h := http.Header{}
		h.Set(name, value)
		return h
	}
	edit := func(f func(h http.Header)) http.Header {
		h := signedHeader(secret, body, ts, OrchPrefix)
		f(h)
		return h
	}
	good := Sign(secret, body)
	tests := []struct {
		name    string
		header  http.Header
		body    []byte
		opts    []Option
		wantErr error
	}{
		{"all headers", signedHeader(secret, body, ts, OrchPrefix), body, nil, nil},
		{"unified only", only(HeaderSignature, good), body, nil, nil},
		{"orch prefix only", only("X-Orch-Signature", good), body, nil, nil},
		{"docint prefix only", only("X-DocInt-Signature", good), body, nil, nil},
		{"header name case-insensitive", http.Header{"X-Service-Signature": {good}}, body, nil, nil},
		{"other product prefix by option", only("X-Bank-Signature", good), body, []Option{WithPrefixes("X-Bank-")}, nil},
		{"other product prefix without option", only("X-Bank-Signature", good), body, nil, ErrMissingSignature},
		{"no signature", http.Header{}, body, nil, ErrMissingSignature},
		{"tampered body", signedHeader(secret, body, ts), []byte(`{"id":"evt_2","event":"webhook.test"}`), nil, ErrSignature},
		{"body with trailing newline", signedHeader(secret, body, ts), append(append([]byte{}, body...), '\n'), nil, ErrSignature},
		{"wrong secret", signedHeader([]byte("svc_whsec_other"), body, ts), body, nil, ErrSignature},
		{"scheme sha1", only(HeaderSignature, "sha1="+strings.TrimPrefix(good, "sha256=")), body, nil, ErrScheme},
		{"scheme uppercase", only(HeaderSignature, "SHA256="+strings.TrimPrefix(good, "sha256=")), body, nil, ErrScheme},
		{"bare hex", only(HeaderSignature, strings.TrimPrefix(good, "sha256=")), body, nil, ErrScheme},
		{"uppercase hex", only(HeaderSignature, "sha256="+strings.ToUpper(strings.TrimPrefix(good, "sha256="))), body, nil, ErrSignature},
		{"truncated", only(HeaderSignature, good[:40]), body, nil, ErrSignature},
		{"one good one bad header", edit(func(h http.Header) { h.Set("X-Orch-Signature", "sha256=00") }), body, nil, ErrSignature},
		{"standard ok", signedHeader(secret, body, ts), body, []Option{WithStandardWebhooks(time.Minute), at(ts + 59)}, nil},
		{"standard too old", signedHeader(secret, body, ts), body, []Option{WithStandardWebhooks(time.Minute), at(ts + 61)}, ErrTimestamp},
		{"standard in the future", signedHeader(secret, body, ts), body, []Option{WithStandardWebhooks(time.Minute), at(ts - 61)}, ErrTimestamp},
		{"standard default tolerance", signedHeader(secret, body, ts), body, []Option{WithStandardWebhooks(0), at(ts + 299)}, nil},
		{"standard timestamp edited", edit(func(h http.Header) { h.Set(HeaderWebhookTimestamp, "1767323046") }), body, []Option{WithStandardWebhooks(0), at(ts)}, ErrSignature},
		{"standard timestamp not canonical", edit(func(h http.Header) { h.Set(HeaderWebhookTimestamp, "+1767323045") }), body, []Option{WithStandardWebhooks(0), at(ts)}, ErrTimestamp},
		{"standard timestamp missing", edit(func(h http.Header) { h.Del(HeaderWebhookTimestamp) }), body, []Option{WithStandardWebhooks(0), at(ts)}, ErrTimestamp},
		{"standard id edited", edit(func(h http.Header) { h.Set(HeaderWebhookID, "evt_2") }), body, []Option{WithStandardWebhooks(0), at(ts)}, ErrSignature},
		{"standard id missing", edit(func(h http.Header) { h.Del(HeaderWebhookID) }), body, []Option{WithStandardWebhooks(0), at(ts)}, ErrMissingSignature},
		{"standard signature missing", edit(func(h http.Header) { h.Del(HeaderWebhookSignature) }), body, []Option{WithStandardWebhooks(0), at(ts)}, ErrMissingSignature},
		{"standard several signatures, one valid", edit(func(h http.Header) {
			h.Set(HeaderWebhookSignature, "v1,AAAA "+h.Get(HeaderWebhookSignature))
		}), body, []Option{WithStandardWebhooks(0), at(ts)}, nil},
		{"standard not checked without option", edit(func(h http.Header) { h.Del(HeaderWebhookSignature) }), body, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify(secret, tt.header, tt.body, tt.opts...)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || !errors.Is(err, ErrVerification) {
				t.Fatalf("Verify err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestNewSecret(t *testing.T) {
	a, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSecret()
	if !strings.HasPrefix(a, SecretPrefix) || len(a) != len(SecretPrefix)+43 || a == b {
		t.Errorf("NewSecret = %q, %q", a, b)
	}
}

func TestStandardSecret(t *testing.T) {
	if got := StandardSecret([]byte("abc")); got != "whsec_YWJj" {
		t.Errorf("StandardSecret = %q", got)
	}
}

func TestHeadersUserAgent(t *testing.T) {
	h := Headers([]byte("k"), Message{UserAgent: "svc-webhooks/1.0 (orchestration)"}, nil)
	if h.Get("User-Agent") != "svc-webhooks/1.0 (orchestration)" {
		t.Errorf("User-Agent = %q", h.Get("User-Agent"))
	}
}

// FuzzVerify: arbitrary headers and bodies never panic Verify, and Verify
// accepts only when every signature present is the correct one for the secret
// and body (and, with the Standard Webhooks check, one webhook-signature entry is).
func FuzzVerify(f *testing.F) {
	secret := []byte("svc_whsec_fuzz")
	body := []byte(`{"id":"evt_1"}`)
	h := signedHeader(secret, body, 1767323045, OrchPrefix)
	f.Add(secret, body, h.Get(HeaderSignature), h.Get("X-Orch-Signature"), "evt_1", "1767323045", h.Get(HeaderWebhookSignature), true)
	f.Add(secret, body, "sha256=", "", "", "", "", false)
	f.Add([]byte{}, []byte{}, Sign(nil, nil), "", "", "x", "v1,", true)
	f.Add(secret, []byte("x"), "sha256=zz", "sha1=00", "id", "-1", "v1,AAAA v1,BBBB", true)
	f.Fuzz(func(t *testing.T, secret, body []byte, unified, orch, id, ts, std string, standard bool) {
		h := http.Header{}
		if unified != "" {
			h.Set(HeaderSignature, unified)
		}
		if orch != "" {
			h.Set("X-Orch-Signature", orch)
		}
		h.Set(HeaderWebhookID, id)
		h.Set(HeaderWebhookTimestamp, ts)
		h.Set(HeaderWebhookSignature, std)
		var opts []Option
		if standard {
			opts = append(opts, WithStandardWebhooks(time.Hour), WithClock(func() time.Time { return time.Unix(1767323045, 0) }))
		}
		if err := Verify(secret, h, body, opts...); err != nil {
			if !errors.Is(err, ErrVerification) {
				t.Fatalf("error does not wrap ErrVerification: %v", err)
			}
			return
		}
		want := Sign(secret, body)
		if (unified == "" && orch == "") || (unified != "" && unified != want) || (orch != "" && orch != want) {
			t.Fatalf("false accept: unified=%q orch=%q want %q", unified, orch, want)
		}
		if standard {
			sec, err := strconv.ParseInt(ts, 10, 64)
			if err != nil || id == "" {
				t.Fatalf("accepted webhook-id %q webhook-timestamp %q", id, ts)
			}
			if !slices.Contains(strings.Fields(std), SignStandard(secret, id, sec, body)) {
				t.Fatalf("false accept of webhook-signature %q", std)
			}
		}
	})
}
