package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/api/apitest"
)

// wantStatus fails the test unless res has status want.
func wantStatus(t testing.TB, res *apitest.Response, want int) {
	t.Helper()
	if res.Status != want {
		t.Fatalf("status %d, want %d; body %s", res.Status, want, res.Body)
	}
}

// wantExactError fails unless res is status with exactly the body {"error": msg}.
func wantExactError(t testing.TB, res *apitest.Response, status int, msg string) {
	t.Helper()
	want, _ := json.Marshal(map[string]string{"error": msg})
	if res.Status != status || strings.TrimSpace(string(res.Body)) != string(want) {
		t.Fatalf("got %d %s, want %d %s", res.Status, res.Body, status, want)
	}
}

// wantReplay asserts an idempotency conflict: SPEC 7.3's "replay detected" with the cause in
// details.reason.
func wantReplay(t testing.TB, res *apitest.Response, status int, reason string) {
	t.Helper()
	want := fmt.Sprintf(`{"error":%q,"details":{"reason":%q}}`, api.MsgReplay, reason)
	if res.Status != status || strings.TrimSpace(string(res.Body)) != want {
		t.Fatalf("got %d %s, want %d %s", res.Status, res.Body, status, want)
	}
}

// str reads a string field of a decoded object.
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
