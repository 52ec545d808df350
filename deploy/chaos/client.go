package chaos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// client calls the cluster's APIs the way SPEC 7.4 asks a client to: round robin over the
// APIs; a network error or a 503 is retried on the next API with the same body (POSTs carry
// an externalId, so a retry is the same request); a 429 waits for Retry-After; a 409 "still in
// progress" (the first try of this externalId is held by an API that died) is retried until
// the record's lease (2 minutes) lets the retry run it.
type client struct {
	bases []string
	key   string
	next  atomic.Uint64
	http  *http.Client
	stats *Stats
}

// Stats counts what the load saw.
type Stats struct {
	Requests, NetworkErrors, Status503, Status429, InFlight409 atomic.Int64
	mu                                                         sync.Mutex
	Other5xx                                                   []string
}

func (s *Stats) other5xx(what string) {
	s.mu.Lock()
	s.Other5xx = append(s.Other5xx, what)
	s.mu.Unlock()
}

type answer struct {
	Status int
	Body   map[string]any
	Raw    []byte
}

func (a answer) data() map[string]any {
	d, _ := a.Body["data"].(map[string]any)
	return d
}

// do sends one request until an API answers something other than a network error, a 503 or
// a 429, for at most within.
func (c *client) do(method, path string, body func() (io.Reader, string), within time.Duration) (answer, error) {
	deadline := time.Now().Add(within)
	backoff := 200 * time.Millisecond
	for {
		base := c.bases[c.next.Add(1)%uint64(len(c.bases))]
		var r io.Reader
		ctype := ""
		if body != nil {
			r, ctype = body()
		}
		req, err := http.NewRequest(method, base+path, r)
		if err != nil {
			return answer{}, err
		}
		req.Header.Set("Authorization", "Bearer "+c.key)
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		c.stats.Requests.Add(1)
		res, err := c.http.Do(req)
		var a answer
		if err == nil {
			a.Status = res.StatusCode
			a.Raw, _ = io.ReadAll(res.Body)
			res.Body.Close()
			_ = json.Unmarshal(a.Raw, &a.Body)
			switch {
			case a.Status == http.StatusTooManyRequests:
				c.stats.Status429.Add(1)
				if s, _ := strconv.Atoi(res.Header.Get("Retry-After")); s > 0 {
					time.Sleep(time.Duration(s) * time.Second)
				}
				continue
			case a.Status == http.StatusServiceUnavailable:
				c.stats.Status503.Add(1)
			case a.Status == http.StatusConflict && bytes.Contains(a.Raw, []byte("in progress")):
				// The same externalId is held by a request an API was handling when it died:
				// the record's lease runs out and a later retry runs the request.
				c.stats.InFlight409.Add(1)
			case a.Status >= 500:
				c.stats.other5xx(fmt.Sprintf("%s %s → %d %s", method, path, a.Status, a.Raw))
				return a, nil
			default:
				return a, nil
			}
		} else {
			c.stats.NetworkErrors.Add(1)
		}
		if time.Now().After(deadline) {
			return a, errors.Join(fmt.Errorf("%s %s: no answer within %s", method, path, within), err)
		}
		time.Sleep(backoff)
		backoff = min(backoff*2, 5*time.Second)
	}
}

func jsonBody(v any) func() (io.Reader, string) {
	b, _ := json.Marshal(v)
	return func() (io.Reader, string) { return bytes.NewReader(b), "application/json" }
}

func fileBody(name string, data []byte, fields map[string]string) func() (io.Reader, string) {
	return func() (io.Reader, string) {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		for k, v := range fields {
			_ = w.WriteField(k, v)
		}
		fw, _ := w.CreateFormFile("file", name)
		_, _ = fw.Write(data)
		_ = w.Close()
		return &buf, w.FormDataContentType()
	}
}
