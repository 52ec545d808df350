package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/config"
)

// login logs in and returns the session cookie and CSRF token.
func login(t *testing.T, h *apitest.Harness, email, password string) (*http.Cookie, string) {
	t.Helper()
	h.Clock.Advance(time.Minute) // each login its own rate-limit window: 5 a minute per IP
	res := h.Do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": password})
	wantStatus(t, res, 200)
	var session *http.Cookie
	for _, c := range res.Cookies {
		if c.Name == api.SessionCookie {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || !session.Secure || session.Path != "/" || session.MaxAge <= 0 {
		t.Fatalf("session cookie = %+v", session)
	}
	return session, str(res.Data(), "csrfToken")
}

func TestDashboardSession(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	res := h.Do("POST", "/api/users", h.AdminKey, map[string]any{"email": "ops@example.com", "role": "admin", "password": "correct horse battery"})
	wantStatus(t, res, 201)
	userID := str(res.Data(), "id")

	for _, bad := range []map[string]any{
		{"email": "ops@example.com", "password": "wrong password!"},
		{"email": "nobody@example.com", "password": "correct horse battery"},
		{"email": h.Admin.Email, "password": "anything at all"}, // a user without a password
	} {
		wantExactError(t, h.Do("POST", "/api/auth/login", "", bad), 401, api.MsgBadCredentials)
	}
	wantStatus(t, h.Do("POST", "/api/auth/login", "", map[string]any{"email": "ops@example.com"}), 400)

	cookie, csrf := login(t, h, "OPS@example.com", "correct horse battery")
	if csrf == "" {
		t.Fatal("no CSRF token")
	}
	// The session acts as its user with the role's scopes.
	me := h.Send(apitest.Request{Method: "GET", Path: "/identity/api/auth/me", Cookies: []*http.Cookie{cookie}})
	wantStatus(t, me, 200)
	if str(me.Data()["user"].(map[string]any), "id") != userID || me.Data()["sessionId"] == nil || me.Data()["apiKeyId"] != nil {
		t.Fatalf("me = %s", me.Body)
	}
	if me.Header.Get(api.HeaderRateLimit) != "600" {
		t.Fatalf("session requests are rate limited too: %v", me.Header)
	}
	// Writes need the CSRF token.
	body := map[string]any{"email": "new@example.com", "role": "viewer"}
	wantExactError(t, h.Send(apitest.Request{Method: "POST", Path: "/api/users", Body: body, Cookies: []*http.Cookie{cookie}}), 403, api.MsgCSRF)
	wantExactError(t, h.Send(apitest.Request{Method: "POST", Path: "/api/users", Body: body, Cookies: []*http.Cookie{cookie},
		Header: http.Header{api.HeaderCSRF: {"forged"}}}), 403, api.MsgCSRF)
	created := h.Send(apitest.Request{Method: "POST", Path: "/api/users", Body: body, Cookies: []*http.Cookie{cookie},
		Header: http.Header{api.HeaderCSRF: {csrf}}})
	wantStatus(t, created, 201)
	// The audit log names the session and its user.
	logs := h.Do("GET", "/api/audit-logs?q="+str(created.Data(), "id"), h.AdminKey, nil)
	entry := logs.JSON["rows"].([]any)[0].(map[string]any)
	if str(entry, "userId") != userID || str(entry, "sessionId") != str(me.Data(), "sessionId") || entry["apiKeyId"] != nil {
		t.Fatalf("audit entry = %v", entry)
	}
	// A viewer's session cannot manage.
	viewer := "viewer@example.com"
	wantStatus(t, h.Do("POST", "/api/users", h.AdminKey, map[string]any{"email": viewer, "role": "viewer", "password": "viewer password"}), 201)
	vc, viewerCSRF := login(t, h, viewer, "viewer password")
	wantExactError(t, h.Send(apitest.Request{Method: "POST", Path: "/api/api-keys", Body: map[string]any{"name": "x", "scopes": []string{"read"}},
		Cookies: []*http.Cookie{vc}, Header: http.Header{api.HeaderCSRF: {viewerCSRF}}}), 403, "missing scope: api:manage")

	// A password change ends the user's sessions.
	wantStatus(t, h.Do("PATCH", "/api/users/"+userID, h.AdminKey, map[string]any{"password": "another long one"}), 200)
	wantExactError(t, h.Send(apitest.Request{Method: "GET", Path: "/identity/api/auth/me", Cookies: []*http.Cookie{cookie}}), 401, api.MsgMissingBearer)

	// Logout ends the session and clears the cookies.
	cookie, _ = login(t, h, "ops@example.com", "another long one")
	out := h.Send(apitest.Request{Method: "POST", Path: "/api/auth/logout", Cookies: []*http.Cookie{cookie}})
	wantStatus(t, out, 204)
	if len(out.Cookies) != 2 || out.Cookies[0].MaxAge >= 0 {
		t.Fatalf("logout cookies = %+v", out.Cookies)
	}
	wantExactError(t, h.Send(apitest.Request{Method: "GET", Path: "/identity/api/auth/me", Cookies: []*http.Cookie{cookie}}), 401, api.MsgMissingBearer)
	wantStatus(t, h.Do("POST", "/api/auth/logout", "", nil), 204)

	// Sessions expire.
	cookie, _ = login(t, h, "ops@example.com", "another long one")
	h.Clock.Advance(h.Config.Auth.SessionTTL)
	wantExactError(t, h.Send(apitest.Request{Method: "GET", Path: "/identity/api/auth/me", Cookies: []*http.Cookie{cookie}}), 401, api.MsgMissingBearer)

	// A disabled user cannot log in.
	h.Clock.Advance(time.Minute)
	wantStatus(t, h.Do("PATCH", "/api/users/"+userID, h.AdminKey, map[string]any{"disabled": true}), 200)
	wantExactError(t, h.Do("POST", "/api/auth/login", "", map[string]any{"email": "ops@example.com", "password": "another long one"}), 401, api.MsgBadCredentials)
}

// TestLoginRateLimitPerIP: 5 attempts a minute per client IP; the client IP comes from
// X-Forwarded-For only when the peer is a configured trusted proxy.
func TestLoginRateLimitPerIP(t *testing.T) {
	attempt := func(h *apitest.Harness, xff string) *apitest.Response {
		return h.Send(apitest.Request{Method: "POST", Path: "/api/auth/login", Header: http.Header{"X-Forwarded-For": {xff}},
			Body: map[string]any{"email": "x@example.com", "password": "wrong password"}})
	}
	t.Run("no trusted proxies: headers are ignored", func(t *testing.T) {
		h := apitest.New(t, apitest.Options{})
		for i := 0; i < 5; i++ {
			res := attempt(h, "203.0.113."+string(rune('1'+i)))
			wantStatus(t, res, 401)
			if res.Header.Get(api.HeaderRateLimit) != "5" {
				t.Fatalf("headers = %v", res.Header)
			}
		}
		res := attempt(h, "198.51.100.7") // a spoofed header does not buy new attempts
		wantStatus(t, res, 429)
		if res.JSON["bucket"] != "login" || res.JSON["limit"].(float64) != 5 || res.Header.Get(api.HeaderRetryAfter) == "" {
			t.Fatalf("429 = %v %s", res.Header, res.Body)
		}
		h.Clock.Advance(61 * time.Second)
		wantStatus(t, attempt(h, ""), 401)
	})
	t.Run("trusted loopback proxy: one bucket per forwarded client", func(t *testing.T) {
		h := apitest.New(t, apitest.Options{Config: func(c *config.Config) { c.HTTP.TrustedProxies = []string{"127.0.0.0/8"} }})
		for i := 0; i < 5; i++ {
			wantStatus(t, attempt(h, "203.0.113.9, 127.0.0.2"), 401)
		}
		wantStatus(t, attempt(h, "203.0.113.9"), 429)
		wantStatus(t, attempt(h, "198.51.100.7"), 401)
		// The left-most, client-supplied part cannot pick the bucket past an untrusted hop.
		wantStatus(t, attempt(h, "10.9.9.9, 203.0.113.9"), 429)
	})
}
