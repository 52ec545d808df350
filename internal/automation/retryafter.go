package automation

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfter caps the wait a provider may ask for, so that a wrong header cannot park
// a workflow for days.
const MaxRetryAfter = 10 * time.Minute

// RetryAfter reads how long a 429 asks to wait: the retry-after-ms header (OpenAI's,
// milliseconds), else Retry-After as whole seconds or an HTTP date (RFC 9110 10.2.3).
// It returns 0 when neither is usable, and at most MaxRetryAfter.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	d := time.Duration(0)
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms > 0 && ms < float64(MaxRetryAfter/time.Millisecond) {
		d = time.Duration(ms * float64(time.Millisecond))
	} else if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
			if secs > 0 {
				d = time.Duration(min(secs, int64(MaxRetryAfter/time.Second))) * time.Second
			}
		} else if t, err := http.ParseTime(v); err == nil && t.After(now) {
			d = t.Sub(now)
		}
	}
	return min(d, MaxRetryAfter)
}
