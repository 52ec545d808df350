package api

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/store/storetest"
)

// TestPanicAnswersEnvelope: a panicking handler answers the 500 envelope with a request id, logs
// the panic with that id, and leaks nothing of the panic to the client.
func TestPanicAnswersEnvelope(t *testing.T) {
	cfg, err := config.Load(config.Options{Environ: []string{"SVC_DATA_DIR=" + t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	st := storetest.Open(t, storetest.Backend{Name: "sqlite", URL: "sqlite:" + t.TempDir() + "/svc.db"})
	s := New(Deps{Config: cfg, Store: st, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	s.engine.GET("/boom", func(c *gin.Context) { panic("secret internal detail") })
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()

	res, err := http.Get(ts.URL + "/boom")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("body %q is not JSON", body)
	}
	if res.StatusCode != 500 || got["error"] != MsgInternal || len(got) != 1 {
		t.Fatalf("got %d %s", res.StatusCode, body)
	}
	if strings.Contains(string(body), "secret internal detail") {
		t.Fatal("the panic value leaked to the client")
	}
	id := res.Header.Get(HeaderRequestID)
	if id == "" || !strings.Contains(logs.String(), id) || !strings.Contains(logs.String(), "secret internal detail") {
		t.Fatalf("the panic must be logged with request id %q; logs: %s", id, logs.String())
	}
}
