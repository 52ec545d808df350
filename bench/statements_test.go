package bench

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"runtime"
	"testing"
	"time"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/events"
	"github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/internal/statements/fixtures"
)

// stmtEnv is the statement benchmarks' organisation on the shared stack: an admin key with
// rate limits out of the way and a receiver of the analyses' final events.
type stmtEnv struct {
	*env
	key  string
	http *http.Client
	done *finals
}

// analyses is the statement benchmarks' organisation, made once per run on the shared stack.
var analyses = perRun(func(e *env) (*stmtEnv, error) {
	boot, err := newBenchOrg(e, "bench statements", "bench-statements@example.com")
	if err != nil {
		return nil, err
	}
	s := &stmtEnv{env: e, key: boot.Secret, done: newFinals(), http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	final := []string{events.AnalysisCompleted, events.AnalysisRequiresReview, events.AnalysisFailed}
	if _, _, err := e.stack.App.Store.Webhooks.Create(context.Background(), e.hooks.Box, boot.Org.ID, s.done.srv.URL+"/final", final, true); err != nil {
		return nil, err
	}
	return s, nil
})

// upload posts one statement through POST /api/analyses/upload.
func (s *stmtEnv) upload(data []byte) (string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, err := w.CreateFormFile("file", "statement.pdf")
	if err != nil {
		return "", err
	}
	_, _ = fw.Write(data)
	_ = w.Close()
	return postAccepted(s.http, s.stack.BaseURL+"/api/analyses/upload", s.key, w.FormDataContentType(), &buf)
}

// pipeline uploads n copies of data (uploadConcurrency at a time) and waits for every final
// event; it returns the wall time and how many completed.
func (s *stmtEnv) pipeline(b *testing.B, data []byte, n int) (time.Duration, int) {
	b.Helper()
	ids := make(chan string, n)
	start := time.Now()
	if _, _, err := parallel(n, uploadConcurrency, func() error {
		id, err := s.upload(data)
		ids <- id
		return err
	}); err != nil {
		b.Fatal(err)
	}
	close(ids)
	completed := 0
	var last time.Time
	for id := range ids {
		select {
		case end := <-s.done.ch(id):
			if end.event == events.AnalysisCompleted {
				completed++
			}
			if end.at.After(last) {
				last = end.at
			}
		case <-time.After(15 * time.Minute):
			b.Fatalf("analysis %s did not finish", id)
		}
	}
	return last.Sub(start), completed
}

// benchmarkStatements measures statement pages per minute through the whole pipeline on
// the dev stack (upload, Temporal, every stage, store, webhook of the final event) and, in
// the same run, the statements engine alone on the same file (one per core), and reports
// both and their ratio.
func benchmarkStatements(b *testing.B, data []byte, pages int) {
	s := analyses(b)
	s.pipeline(b, data, 1) // warm up: worker pollers, engine, connections
	b.ResetTimer()
	wall, completed := s.pipeline(b, data, b.N)
	b.StopTimer()
	r := statements.NewReader(docintel.Config{})
	engine, _, err := parallel(b.N, runtime.NumCPU(), func() error {
		fr, err := r.ReadFile(context.Background(), 0, data, "", nil, "")
		if err == nil {
			statements.Analyze([]*statements.FileResult{fr}, [][]byte{data}, nil)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	perMin := float64(b.N*pages) / wall.Minutes()
	enginePerMin := float64(b.N*pages) / engine.Minutes()
	b.ReportMetric(perMin, "pages/min")
	b.ReportMetric(enginePerMin, "engine-pages/min")
	b.ReportMetric(perMin/enginePerMin, "pipeline/engine")
	b.ReportMetric(float64(completed)/float64(b.N), "completed/analysis")
}

// BenchmarkStatementsTextPDF: a three-page text statement (40 transactions).
//
//	go test ./bench/ -run '^$' -bench StatementsTextPDF -benchtime 20x
func BenchmarkStatementsTextPDF(b *testing.B) {
	tr := fixtures.Series(70, fixtures.Template("northwind-us"), 1, 40)[0]
	data, err := fixtures.TextPDF(tr)
	if err != nil {
		b.Fatal(err)
	}
	benchmarkStatements(b, data, len(fixtures.Pages(tr)))
}

// BenchmarkStatementsScannedPDF: the scanned copy of a statement (18 transactions, OCR).
//
//	go test ./bench/ -run '^$' -bench StatementsScannedPDF -benchtime 4x
func BenchmarkStatementsScannedPDF(b *testing.B) {
	tr := fixtures.Series(71, fixtures.Template("northwind-us"), 1, 18)[0]
	data, err := fixtures.ScanPDF(tr, 1)
	if err != nil {
		b.Fatal(err)
	}
	benchmarkStatements(b, data, len(fixtures.Pages(tr)))
}
