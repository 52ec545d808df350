package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// RetryPolicy is SPEC 7.4's recommended client retry behaviour:
//   - 400, 401, 403, 404, 409 and 422 are never retried;
//   - a 429 waits Retry-After seconds and retries once; limited again, it backs off
//     exponentially;
//   - 500, 502, 503, 504, network errors and timeouts back off exponentially with jitter,
//     min(2^n s + jitter, MaxDelay), at most MaxRetries retries.
//
// A request is retried after a failure that may have reached the server only when retrying
// cannot do it twice: GET, HEAD, PUT, DELETE and OPTIONS, and a POST or PATCH whose JSON body
// carries an externalId (SPEC 4.7). A 429 was not served, so it is retried whatever the method.
type RetryPolicy struct {
	MaxRetries int
	// Base is the first backoff (2^0 × Base); MaxDelay caps every wait.
	Base, MaxDelay time.Duration
	// Sleep waits d or until ctx ends (tests replace it); nil sleeps on a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultRetry is SPEC 7.4's policy: at most 5 retries, 1 s doubling, capped at 60 s.
var DefaultRetry = RetryPolicy{MaxRetries: 5, Base: time.Second, MaxDelay: 60 * time.Second}

// retrying is the HttpRequestDoer that applies a RetryPolicy.
type retrying struct {
	doer   HttpRequestDoer
	policy RetryPolicy
}

func (r *retrying) Do(req *http.Request) (*http.Response, error) {
	body, err := bodyOf(req)
	if err != nil {
		return nil, err
	}
	replayable := safeToRepeat(req.Method, body)
	backoffs := 0
	limitedOnce := false
	for attempt := 0; ; attempt++ {
		if body != nil {
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		res, err := r.doer.Do(req)
		wait, retry := r.next(res, err, replayable, &limitedOnce, &backoffs)
		if !retry || attempt >= r.policy.MaxRetries {
			return res, err
		}
		if res != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
			_ = res.Body.Close()
		}
		if err := r.sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// next decides whether to retry an answer and how long to wait first.
func (r *retrying) next(res *http.Response, err error, replayable bool, limitedOnce *bool, backoffs *int) (time.Duration, bool) {
	if err != nil {
		if !replayable || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return 0, false
		}
		return r.backoff(backoffs), true
	}
	switch res.StatusCode {
	case http.StatusTooManyRequests:
		if s, e := strconv.Atoi(res.Header.Get("Retry-After")); e == nil && s >= 0 && !*limitedOnce {
			*limitedOnce = true
			return min(time.Duration(s)*time.Second, r.policy.MaxDelay), true
		}
		return r.backoff(backoffs), true
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if !replayable {
			return 0, false
		}
		return r.backoff(backoffs), true
	}
	return 0, false
}

// backoff is the n-th exponential wait: min(2^n × Base + jitter, MaxDelay), jitter in [0, Base).
func (r *retrying) backoff(n *int) time.Duration {
	d := r.policy.Base << min(*n, 30)
	*n++
	if r.policy.Base > 0 {
		d += time.Duration(rand.Int64N(int64(r.policy.Base)))
	}
	return min(d, r.policy.MaxDelay)
}

func (r *retrying) sleep(ctx context.Context, d time.Duration) error {
	if r.policy.Sleep != nil {
		return r.policy.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func bodyOf(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer func() { _ = req.Body.Close() }()
	return io.ReadAll(req.Body)
}

// safeToRepeat reports whether sending the request twice cannot do its work twice.
func safeToRepeat(method string, body []byte) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	case http.MethodPost, http.MethodPatch:
		var b struct {
			ExternalID string `json:"externalId"`
		}
		return json.Unmarshal(body, &b) == nil && b.ExternalID != ""
	}
	return false
}
