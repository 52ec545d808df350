package webhook_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/webhook"
)

// A receiver: verify the raw body first, answer 401 when it fails, 2xx to acknowledge.
// Use the event id to discard duplicates: a delivery can arrive more than once.
func Example() {
	secret := []byte("svc_whsec_example") // the secret shown when the subscription was created
	receiver := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || webhook.Verify(secret, r.Header, body) != nil {
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		var evt events.Envelope
		if err := json.Unmarshal(body, &evt); err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		fmt.Println("received", evt.Event, evt.ID, string(evt.Data))
		w.WriteHeader(http.StatusNoContent)
	})

	// What the service sends (here to a local test server).
	srv := httptest.NewServer(receiver)
	defer srv.Close()
	body := `{"id":"evt_01kdyak3se2yd34p9f1n9v8dxh","event":"webhook.test","occurredAt":"2026-01-02T03:04:05.678Z","orgId":"org_1","data":{"source":"test"}}`
	for _, key := range [][]byte{secret, []byte("svc_whsec_wrong")} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header = webhook.Headers(key, webhook.Message{EventID: "evt_01kdyak3se2yd34p9f1n9v8dxh", Event: "webhook.test",
			DeliveryID: "whd_1", Attempt: 1, Timestamp: time.Now()}, []byte(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	// Output:
	// received webhook.test evt_01kdyak3se2yd34p9f1n9v8dxh {"source":"test"}
	// 204
	// 401
}
