package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/store"
)

// request is one dashboard request: the visitor's session and user once authenticated.
type request struct {
	d    *Dashboard
	w    http.ResponseWriter
	r    *http.Request
	sess *store.Session
	user *store.User
}

// answer is the API's answer to an in-process call.
type answer struct {
	Status int
	Header http.Header
	Body   map[string]any
	// Path is the API path called (refusals that share a message differ by it).
	Path string
	// Raw is the body when it is not JSON (an image).
	Raw []byte
}

// OK reports a 2xx answer.
func (a answer) OK() bool { return a.Status >= 200 && a.Status < 300 }

// Data is the success envelope's data object.
func (a answer) Data() map[string]any {
	d, _ := a.Body["data"].(map[string]any)
	return d
}

// Rows are the rows of a list answer, offset ("data") or cursor ("rows") style.
func (a answer) Rows() []any {
	if rows, ok := a.Body["rows"].([]any); ok {
		return rows
	}
	rows, _ := a.Body["data"].([]any)
	return rows
}

// Message is the failure envelope's error.
func (a answer) Message() string {
	s, _ := a.Body["error"].(string)
	return s
}

// FieldErrors are the failure's details.fieldErrors.
func (a answer) FieldErrors() map[string][]string {
	details, _ := a.Body["details"].(map[string]any)
	raw, _ := details["fieldErrors"].(map[string]any)
	if len(raw) == 0 {
		return nil
	}
	out := map[string][]string{}
	for k, v := range raw {
		list, _ := v.([]any)
		for _, m := range list {
			out[k] = append(out[k], fmt.Sprint(m))
		}
	}
	return out
}

// call sends method path to the API in process, as the visitor: their cookies (the session),
// client address, forwarded-for headers and request id, and on a write the form's CSRF token,
// which the API checks against the session as it does for any cookie request. body, when not
// nil, is sent as JSON.
func (q *request) call(method, path string, query url.Values, body any) answer {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{Status: http.StatusInternalServerError}
		}
		rd = bytes.NewReader(b)
	}
	target := path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	// The call outlives a visitor who hangs up no more than the API's own handlers allow.
	ctx := context.WithoutCancel(q.r.Context())
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return answer{Status: http.StatusBadRequest}
	}
	req.RemoteAddr = q.r.RemoteAddr
	req.Host = q.r.Host
	req.TLS = q.r.TLS
	for _, h := range []string{"Cookie", "X-Forwarded-For", "X-Real-Ip", "User-Agent", api.HeaderRequestID} {
		if v := q.r.Header.Values(h); len(v) > 0 {
			req.Header[http.CanonicalHeaderKey(h)] = v
		}
	}
	if id := q.w.Header().Get(api.HeaderRequestID); id != "" {
		req.Header.Set(api.HeaderRequestID, id) // one request id for the page and its calls
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet {
		req.Header.Set(api.HeaderCSRF, q.r.PostFormValue("csrf"))
	}
	rec := httptest.NewRecorder()
	q.d.API.ServeHTTP(rec, req)
	out := answer{Status: rec.Code, Header: rec.Header(), Path: path}
	if b := rec.Body.Bytes(); len(b) > 0 && b[0] == '{' {
		_ = json.Unmarshal(b, &out.Body)
	} else {
		out.Raw = b
	}
	return out
}

// get reads path from the API; a failure that ends the page (sign-in again, not found) is
// answered here and ok is false.
func (q *request) get(path string, query url.Values) (answer, bool) {
	a := q.call(http.MethodGet, path, query, nil)
	if a.OK() {
		return a, true
	}
	q.refused(a)
	return a, false
}

// refused answers a failed call that no page shows inline: sign in again on 401, the
// not-found page on 404, otherwise an error page in plain words.
func (q *request) refused(a answer) {
	switch a.Status {
	case http.StatusUnauthorized:
		q.redirect(Prefix + "/login?expired=1")
	case http.StatusNotFound:
		q.notFound()
	default:
		q.fail(a.Status, plainWords(a, q.role()))
	}
}

// role is the visitor's role ("" before sign-in).
func (q *request) role() string {
	if q.user == nil {
		return ""
	}
	return q.user.Role
}

// form is a trimmed form value.
func (q *request) form(name string) string { return strings.TrimSpace(q.r.PostFormValue(name)) }
