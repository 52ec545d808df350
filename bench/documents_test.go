package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/auth"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/documents/fixtures"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/store"
)

// uploadConcurrency is how many clients upload at once in the document benchmarks.
const uploadConcurrency = 4

// docEnv is the document benchmarks' organisation on the shared stack: an admin key with rate
// limits out of the way and a receiver of the documents' final events.
type docEnv struct {
	*env
	orgID, key string
	http       *http.Client
	done       *finals
}

// documents is the document benchmarks' organisation, made once per run on the shared stack.
var documents = perRun(newDocEnv)

func newDocEnv(e *env) (*docEnv, error) {
	boot, err := newBenchOrg(e, "bench documents", "bench-docs@example.com")
	if err != nil {
		return nil, err
	}
	d := &docEnv{env: e, orgID: boot.Org.ID, key: boot.Secret, done: newFinals(),
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	final := []string{events.DocumentExtracted, events.DocumentRequiresReview, events.DocumentFailed}
	if _, _, err := e.stack.App.Store.Webhooks.Create(context.Background(), e.hooks.Box, d.orgID, d.done.srv.URL+"/final", final, true); err != nil {
		return nil, err
	}
	return d, nil
}

// newBenchOrg makes an organisation with an admin key whose rate limits no benchmark reaches.
func newBenchOrg(e *env, name, email string) (*store.BootstrapResult, error) {
	ctx := context.Background()
	st := e.stack.App.Store
	boot, err := st.Orgs.Bootstrap(ctx, store.BootstrapInput{OrgName: name, Email: email,
		UserName: "bench", Role: auth.RoleAdmin, Environment: e.stack.Config.Environment, Now: time.Now()})
	if err != nil {
		return nil, err
	}
	for bucket := range api.DefaultRateLimits() {
		if err := st.RateLimits.SetOverride(ctx, store.RateLimitOverride{OrgID: boot.Org.ID, Bucket: bucket, MaxRequests: 1 << 30, WindowSeconds: 60}); err != nil {
			return nil, err
		}
	}
	return boot, nil
}

// finals receives final events (a document's, an execution's, an analysis's completion) and hands each one's
// arrival time and name to whoever waits for the resource its data names, once.
type finals struct {
	srv *httptest.Server
	mu  sync.Mutex
	chs map[string]chan final
}

// final is how and when a document or an execution ended.
type final struct {
	at    time.Time
	event string
}

func newFinals() *finals {
	c := &finals{chs: map[string]chan final{}}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		var ev struct {
			Event string `json:"event"`
			Data  struct {
				DocumentID  string `json:"documentId"`
				ExecutionID string `json:"executionId"`
				AnalysisID  string `json:"analysisId"`
			} `json:"data"`
		}
		_ = json.NewDecoder(r.Body).Decode(&ev)
		w.WriteHeader(http.StatusNoContent)
		select {
		case c.ch(cmp.Or(ev.Data.DocumentID, ev.Data.ExecutionID, ev.Data.AnalysisID)) <- final{at: now, event: ev.Event}:
		default: // a repeat
		}
	}))
	return c
}

// ch is the channel of one resource's final event, made by whichever side comes first.
func (c *finals) ch(id string) chan final {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chs[id] == nil {
		c.chs[id] = make(chan final, 1)
	}
	return c.chs[id]
}

// upload posts one document through POST /api/documents/upload.
func (d *docEnv) upload(name string, data []byte) (string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, err := w.CreateFormFile("file", name)
	if err != nil {
		return "", err
	}
	_, _ = fw.Write(data)
	_ = w.Close()
	return postAccepted(d.http, d.stack.BaseURL+"/api/documents/upload", d.key, w.FormDataContentType(), &buf)
}

// postAccepted POSTs body with key and returns data.id of the 202 answer.
func postAccepted(c *http.Client, url, key, contentType string, body io.Reader) (string, error) {
	req, err := http.NewRequest("POST", url, body)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", contentType)
	res, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var out struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusAccepted {
		return "", fmt.Errorf("POST %s: %d %v", url, res.StatusCode, err)
	}
	return out.Data.ID, nil
}

// pipeline uploads n copies of data (uploadConcurrency at a time) and waits for every final
// event; it returns the wall time, each document's upload-to-final-event latency and how many
// were extracted.
func (d *docEnv) pipeline(b *testing.B, name string, data []byte, n int) (time.Duration, []time.Duration, int) {
	b.Helper()
	type sent struct {
		id string
		at time.Time
	}
	ids := make(chan sent, n)
	start := time.Now()
	_, _, err := parallel(n, uploadConcurrency, func() error {
		at := time.Now()
		id, err := d.upload(name, data)
		ids <- sent{id, at}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	close(ids)
	var lat []time.Duration
	extracted := 0
	var last time.Time
	for s := range ids {
		select {
		case end := <-d.done.ch(s.id):
			lat = append(lat, end.at.Sub(s.at))
			if end.event == events.DocumentExtracted {
				extracted++
			}
			if end.at.After(last) {
				last = end.at
			}
		case <-time.After(10 * time.Minute):
			b.Fatalf("document %s did not finish", s.id)
		}
	}
	return last.Sub(start), lat, extracted
}

// engineOnly runs n documents through docintel's stages in this process, one per core: the
// engine's own throughput, without API, Temporal, store or webhooks.
func engineOnly(b *testing.B, data []byte, n int) time.Duration {
	b.Helper()
	e := docintel.NewEngine(docintel.Config{})
	wall, _, err := parallel(n, runtime.NumCPU(), func() error {
		_, err := e.Process(context.Background(), data, docintel.ProcessOptions{})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return wall
}

// benchmarkDocuments measures documents per minute through the whole pipeline (upload,
// Temporal, every stage as an activity, store, webhook of the final event) and, in the same
// run, the engine alone on the same file, and reports both and their ratio.
func benchmarkDocuments(b *testing.B, name string, data []byte) {
	d := documents(b)
	d.pipeline(b, name, data, 2) // warm up: worker pollers, engine, connections
	b.ResetTimer()
	wall, lat, extracted := d.pipeline(b, name, data, b.N)
	b.StopTimer()
	engine := engineOnly(b, data, b.N)
	perMin := float64(b.N) / wall.Minutes()
	enginePerMin := float64(b.N) / engine.Minutes()
	b.ReportMetric(perMin, "docs/min")
	b.ReportMetric(enginePerMin, "engine-docs/min")
	b.ReportMetric(perMin/enginePerMin, "pipeline/engine")
	b.ReportMetric(float64(percentile(lat, 0.5).Milliseconds()), "p50-ms")
	b.ReportMetric(float64(percentile(lat, 0.95).Milliseconds()), "p95-ms")
	b.ReportMetric(float64(extracted)/float64(b.N), "extracted/doc")
}

// BenchmarkDocumentsTextPDF: text NPWP PDFs (text layer, no OCR).
//
//	go test ./bench/ -run '^$' -bench DocumentsTextPDF -benchtime 60x
func BenchmarkDocumentsTextPDF(b *testing.B) {
	benchmarkDocuments(b, "npwp.pdf", fixtures.NPWPTextPDF(b))
}

// BenchmarkDocumentsOCRPhoto: photos of an NPWP card (PNG, OCR with orientation detection).
//
//	go test ./bench/ -run '^$' -bench DocumentsOCRPhoto -benchtime 20x
func BenchmarkDocumentsOCRPhoto(b *testing.B) {
	benchmarkDocuments(b, "npwp.png", fixtures.NPWPPhotoPNG(b))
}
