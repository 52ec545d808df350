package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a RetryPolicy whose Sleep records the waits instead of waiting.
func recorder(waits *[]time.Duration) RetryPolicy {
	p := DefaultRetry
	p.Sleep = func(_ context.Context, d time.Duration) error { *waits = append(*waits, d); return nil }
	return p
}

// serve answers each request with the next status of statuses (the last one repeats).
func serve(t *testing.T, statuses []int, header http.Header) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(statuses[min(i, len(statuses)-1)])
		_, _ = fmt.Fprint(w, `{"error":"x"}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func do(t *testing.T, p RetryPolicy, method, url, body string) (*http.Response, error) {
	t.Helper()
	var req *http.Request
	var err error
	if body == "" {
		req, err = http.NewRequest(method, url, nil)
	} else {
		req, err = http.NewRequest(method, url, strings.NewReader(body))
	}
	if err != nil {
		t.Fatal(err)
	}
	r := &retrying{doer: http.DefaultClient, policy: p}
	res, err := r.Do(req)
	if res != nil {
		_ = res.Body.Close()
	}
	return res, err
}

// TestNoRetryOnClientErrors: SPEC 7.4 rule 1, whatever the method.
func TestNoRetryOnClientErrors(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 409, 422} {
		var waits []time.Duration
		srv, n := serve(t, []int{status, 200}, nil)
		res, err := do(t, recorder(&waits), http.MethodGet, srv.URL, "")
		if err != nil || res.StatusCode != status || n.Load() != 1 || len(waits) != 0 {
			t.Errorf("%d: status %v err %v, %d requests, waits %v; want one request", status, res.StatusCode, err, n.Load(), waits)
		}
	}
}

// TestRateLimitedWaitsRetryAfterThenBacksOff: rule 2; a 429 is retried even on a POST
// without externalId, since it was not served.
func TestRateLimitedWaitsRetryAfterThenBacksOff(t *testing.T) {
	var waits []time.Duration
	srv, n := serve(t, []int{429, 429, 201}, http.Header{"Retry-After": {"7"}})
	res, err := do(t, recorder(&waits), http.MethodPost, srv.URL, `{"name":"x"}`)
	if err != nil || res.StatusCode != 201 || n.Load() != 3 {
		t.Fatalf("status %v err %v after %d requests", res, err, n.Load())
	}
	if waits[0] != 7*time.Second {
		t.Errorf("first wait %v, want Retry-After's 7s", waits[0])
	}
	if waits[1] < time.Second || waits[1] >= 2*time.Second {
		t.Errorf("second wait %v, want the first backoff, 1s plus jitter below 1s", waits[1])
	}
}

// TestServerErrorsBackOffFiveTimes: rule 3 on an idempotent request: 5 retries with waits
// 2^n s + jitter, then the last answer.
func TestServerErrorsBackOffFiveTimes(t *testing.T) {
	for _, status := range []int{500, 502, 503, 504} {
		var waits []time.Duration
		srv, n := serve(t, []int{status}, nil)
		res, err := do(t, recorder(&waits), http.MethodGet, srv.URL, "")
		if err != nil || res.StatusCode != status || n.Load() != 6 {
			t.Fatalf("%d: %v %v after %d requests, want 6", status, res, err, n.Load())
		}
		for i, w := range waits {
			lo := time.Duration(1<<i) * time.Second
			if w < lo || w >= lo+time.Second {
				t.Errorf("%d: wait %d = %v, want [%v, %v)", status, i, w, lo, lo+time.Second)
			}
		}
	}
}

// TestDelayCappedAtSixtySeconds: min(2^n + jitter, 60 s).
func TestDelayCappedAtSixtySeconds(t *testing.T) {
	r := &retrying{policy: DefaultRetry}
	n := 10
	if d := r.backoff(&n); d != 60*time.Second {
		t.Fatalf("backoff 2^10 s = %v, want the 60 s cap", d)
	}
}

// TestPostRetriedOnlyWithExternalID: a POST that may have been served is repeated only when
// the server can recognise the repeat.
func TestPostRetriedOnlyWithExternalID(t *testing.T) {
	var waits []time.Duration
	srv, n := serve(t, []int{503, 202}, nil)
	if res, _ := do(t, recorder(&waits), http.MethodPost, srv.URL, `{"inputs":{}}`); res.StatusCode != 503 || n.Load() != 1 {
		t.Fatalf("POST without externalId: %d after %d requests, want 503 after 1", res.StatusCode, n.Load())
	}
	var bodies []string
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 100)
		k, _ := r.Body.Read(b)
		bodies = append(bodies, string(b[:k]))
		if len(bodies) == 1 {
			w.WriteHeader(503)
			return
		}
		w.WriteHeader(202)
	}))
	defer srv2.Close()
	body := `{"inputs":{},"externalId":"order-1"}`
	if res, _ := do(t, recorder(&waits), http.MethodPost, srv2.URL, body); res.StatusCode != 202 || len(bodies) != 2 || bodies[1] != body {
		t.Fatalf("POST with externalId: %v, bodies %q; want the same body sent twice", res.StatusCode, bodies)
	}
}

// TestNetworkErrorsRetried: a refused connection is retried like a 503.
func TestNetworkErrorsRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	_ = l.Close()
	var waits []time.Duration
	_, err = do(t, recorder(&waits), http.MethodGet, url, "")
	if err == nil || len(waits) != 5 {
		t.Fatalf("err %v, %d waits; want an error after 5 retries", err, len(waits))
	}
}

// TestRetryStopsWithContext: a cancelled wait ends the call with the context's error.
func TestRetryStopsWithContext(t *testing.T) {
	srv, _ := serve(t, []int{503}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	p := DefaultRetry
	p.Sleep = func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() }
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	if _, err := (&retrying{doer: http.DefaultClient, policy: p}).Do(req); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}
