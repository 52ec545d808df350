package orchestration

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Limits and defaults of http nodes.
const (
	// DefaultHTTPTimeout bounds one attempt of an http node without a timeout.
	DefaultHTTPTimeout = 30 * time.Second
	// MaxHTTPTimeout is the largest timeout an http node may set.
	MaxHTTPTimeout = 5 * time.Minute
	// DefaultMaxAttempts is the attempts of an http node without a retry policy.
	DefaultMaxAttempts = 3
	// MaxAttempts is the largest retry.maxAttempts.
	MaxAttempts = 10
	// DefaultBackoff is the wait before the second attempt; each later wait doubles.
	DefaultBackoff = time.Second
)

// HTTP is the "http" kind: one outbound request, made by an activity with the node's retry
// policy through the SSRF-guarded client. Config:
//
//	{"method": "POST", "url": "https://api.example.com/users/{{ inputs.userId }}",
//	 "headers": {"Authorization": "Bearer {{ inputs.token }}"},
//	 "body": {"amount": "{{ inputs.amount }}"},
//	 "timeout": "10s", "retry": {"maxAttempts": 3, "backoff": "1s"}}
//
// method defaults to GET; url, header values and body are templates. A string body is sent
// as text, any other body as JSON. The output is {status, headers, body} (see HTTPResponse).
type HTTP struct{}

// HTTPRequest is a rendered http node: the input of the activity that makes the call.
type HTTPRequest struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the body as JSON values; nil sends none.
	Body any `json:"body,omitempty"`
	// Timeout bounds one attempt.
	Timeout time.Duration `json:"timeout"`
}

// HTTPResponse is an http node's output.
type HTTPResponse struct {
	// Status is the response status code.
	Status int `json:"status"`
	// Headers holds a few response headers (content-type, location, etag, ...), lower-cased.
	Headers map[string]string `json:"headers"`
	// Body is the parsed JSON body, or the body as text when it is not JSON.
	Body any `json:"body"`
}

// RetryPolicy is an http node's retry policy: up to MaxAttempts attempts, waiting Backoff
// before the second and doubling the wait after each further failure.
type RetryPolicy struct {
	MaxAttempts int           `json:"maxAttempts"`
	Backoff     time.Duration `json:"backoff"`
}

var httpMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true}

// forbiddenHeaders are set by the HTTP client itself.
var forbiddenHeaders = map[string]bool{"host": true, "content-length": true, "transfer-encoding": true, "connection": true}

// Name implements Kind.
func (HTTP) Name() string { return "http" }

// Routes implements Kind: an http node has one way out.
func (HTTP) Routes() Routes { return Routes{} }

// Compile implements Kind.
func (HTTP) Compile(r *ConfigReader) Step {
	s := &httpStep{method: "GET", urlPath: r.Path("url")}
	if r.Has("method") {
		m := r.String("method", true)
		if m != "" && !httpMethods[m] {
			r.Errorf("method", "must be one of GET, HEAD, POST, PUT, PATCH, DELETE")
		}
		s.method = m
	}
	if s.url = r.Template("url", true); s.url != nil {
		checkURLTemplate(r, s.url)
	}
	if s.headers = r.Template("headers", false); s.headers != nil {
		checkHeaders(r, s.headers)
	}
	s.body = r.Template("body", false)
	if s.body != nil && (s.method == "GET" || s.method == "HEAD") {
		r.Errorf("body", "a %s request has no body", s.method)
	}
	s.timeout = r.Duration("timeout", false, DefaultHTTPTimeout, time.Second, MaxHTTPTimeout)
	s.retry = RetryPolicy{MaxAttempts: DefaultMaxAttempts, Backoff: DefaultBackoff}
	if rr := r.Object("retry", false); rr != nil {
		s.retry.MaxAttempts = rr.Int("maxAttempts", false, DefaultMaxAttempts, 1, MaxAttempts)
		s.retry.Backoff = rr.Duration("backoff", false, DefaultBackoff, 100*time.Millisecond, time.Hour)
		rr.Finish()
	}
	return s
}

// checkURLTemplate refuses a URL that cannot be http(s): a literal URL must parse with an
// http or https scheme and a host; a templated one must at least start with its scheme
// when it starts with text. The activity checks the rendered URL again.
func checkURLTemplate(r *ConfigReader, t *Template) {
	if v, ok := t.Literal(); ok {
		s, isString := v.(string)
		if !isString {
			r.Errorf("url", "must be a string")
			return
		}
		if err := CheckURL(s); err != nil {
			r.Errorf("url", "%v", err)
		}
		return
	}
	if prefix := t.literalPrefix(); prefix != "" {
		lower := strings.ToLower(prefix)
		if !strings.HasPrefix("https://", lower) && !strings.HasPrefix("http://", lower) &&
			!strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "http://") {
			r.Errorf("url", "must start with http:// or https://")
		}
	}
}

// RedactURL is a URL without its query, fragment and user info, which may hold
// credentials: the form in which a node's URL goes into summaries, logs and messages.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}

// CheckURL reports why s is not an absolute http or https URL.
func CheckURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("invalid URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("URL scheme must be http or https")
	}
	if u.Host == "" {
		return fmt.Errorf("URL has no host")
	}
	return nil
}

func checkHeaders(r *ConfigReader, t *Template) {
	obj, ok := t.root.(*objectNode)
	if !ok {
		r.Errorf("headers", "must be an object of header names to string values")
		return
	}
	for _, f := range obj.fields {
		path := "headers." + f.key
		if !validHeaderName(f.key) {
			r.Errorf(path, "is not a valid header name")
		} else if forbiddenHeaders[strings.ToLower(f.key)] {
			r.Errorf(path, "is set by the HTTP client and cannot be given")
		}
		if !textual(f.val) {
			r.Errorf(path, "must be a string")
		}
	}
}

// validHeaderName reports whether s is an HTTP token (RFC 9110 5.1).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

type httpStep struct {
	urlPath string
	method  string
	url     *Template
	headers *Template
	body    *Template
	timeout time.Duration
	retry   RetryPolicy
}

// Plan renders the request; the call itself is an activity.
func (s *httpStep) Plan(env Env) (Action, error) {
	req := HTTPRequest{Method: s.method, Timeout: s.timeout}
	u, err := s.url.Eval(env)
	if err != nil {
		return nil, err
	}
	req.URL = Text(u)
	if err := CheckURL(req.URL); err != nil {
		return nil, fmt.Errorf("%s: %q: %v", s.urlPath, req.URL, err)
	}
	if s.headers != nil {
		h, err := s.headers.Eval(env)
		if err != nil {
			return nil, err
		}
		hm, _ := h.(map[string]any)
		req.Headers = make(map[string]string, len(hm))
		for k, v := range hm {
			req.Headers[k] = Text(v)
		}
	}
	if s.body != nil {
		if req.Body, err = s.body.Eval(env); err != nil {
			return nil, err
		}
	}
	return CallHTTP{Request: req, Retry: s.retry}, nil
}
