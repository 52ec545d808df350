package chaos

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// setup creates the two workflows the load starts and a subscription of the receiver to every
// event they and the documents publish.
func setup(admin *client, receiver string) error {
	defs := map[string]any{
		"chaos-approval": map[string]any{"nodes": []any{
			map[string]any{"id": "check", "kind": "transform", "config": map[string]any{"output": map[string]any{"amount": "{{ inputs.amount }}"}}, "next": "approve"},
			map[string]any{"id": "approve", "kind": "human_approval", "config": map[string]any{"actionLabel": "Pay?", "assignTo": "role:reviewer"}, "next": map[string]any{"approve": "done"}},
			map[string]any{"id": "done", "kind": "transform", "config": map[string]any{"output": map[string]any{"paid": true}}},
		}},
		"chaos-http": map[string]any{"nodes": []any{
			map[string]any{"id": "score", "kind": "http", "config": map[string]any{"url": receiver + "/target", "retry": map[string]any{"maxAttempts": 5, "backoff": "1s"}}, "next": "done"},
			map[string]any{"id": "done", "kind": "transform", "config": map[string]any{"output": map[string]any{"ok": true}}},
		}},
	}
	for slug, def := range defs {
		a, err := admin.do("POST", "/api/workflows", jsonBody(map[string]any{"slug": slug, "name": slug, "definition": def, "externalId": "setup-" + slug}), time.Minute)
		if err != nil || a.Status != 201 && a.Status != 200 {
			return fmt.Errorf("create workflow %s: %d %s %v", slug, a.Status, a.Raw, err)
		}
	}
	a, err := admin.do("POST", "/api/webhooks", jsonBody(map[string]any{"url": receiver + "/hook", "events": subscribed}), time.Minute)
	if err != nil || a.Status != 201 && a.Status != 200 {
		return fmt.Errorf("subscribe: %d %s %v", a.Status, a.Raw, err)
	}
	return nil
}

// subscribed are the events the receiver subscribes to.
var subscribed = []string{"workflow.execution.started", "workflow.execution.completed", "workflow.execution.failed",
	"workflow.human_approval_pending", "document.extracted", "document.requires_review", "document.failed"}

// loadRun starts executions and uploads documents, and approves what waits for approval.
type loadRun struct {
	admin, reviewer *client
	pdf             []byte
	roll            func() float64

	mu       sync.Mutex
	execs    map[string]string // execution id → workflow slug
	docs     []string
	failures []string
}

func (l *loadRun) executions() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]string, len(l.execs))
	for k, v := range l.execs {
		out[k] = v
	}
	return out
}

func (l *loadRun) documents() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.docs...)
}

// start sends about four starts a second, from four clients at once, until ctx ends.
func (l *loadRun) start(ctx context.Context) {
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				l.one()
				time.Sleep(time.Second)
			}
		}()
	}
	wg.Wait()
}

// one starts an execution or uploads a document; every POST carries an externalId, so that
// the retries of a request that a killed API may or may not have done are one request.
func (l *loadRun) one() {
	ext := nextID("chaos")
	switch x := l.roll(); {
	case x < 0.5:
		l.startExecution("chaos-approval", ext, map[string]any{"amount": 100})
	case x < 0.8:
		l.startExecution("chaos-http", ext, map[string]any{})
	default:
		a, err := l.admin.do("POST", "/api/documents/upload", fileBody("statement.pdf", l.pdf, map[string]string{"externalId": ext}), 4*time.Minute)
		if err != nil || a.Status != http.StatusAccepted && a.Status != http.StatusCreated && a.Status != http.StatusOK {
			l.fail(fmt.Sprintf("upload %s: %d %s %v", ext, a.Status, a.Raw, err))
			return
		}
		l.mu.Lock()
		l.docs = append(l.docs, fmt.Sprint(a.data()["id"]))
		l.mu.Unlock()
	}
}

func (l *loadRun) startExecution(slug, ext string, inputs map[string]any) {
	a, err := l.admin.do("POST", "/api/workflows/"+slug+"/executions", jsonBody(map[string]any{"inputs": inputs, "externalId": ext}), 4*time.Minute)
	if err != nil || a.Status != http.StatusAccepted && a.Status != http.StatusCreated && a.Status != http.StatusOK {
		l.fail(fmt.Sprintf("start %s %s: %d %s %v", slug, ext, a.Status, a.Raw, err))
		return
	}
	l.mu.Lock()
	if l.execs == nil {
		l.execs = map[string]string{}
	}
	l.execs[fmt.Sprint(a.data()["id"])] = slug
	l.mu.Unlock()
}

func (l *loadRun) fail(what string) {
	l.mu.Lock()
	l.failures = append(l.failures, what)
	l.mu.Unlock()
}

// approve decides every pending approval with the reviewer's key until ctx ends. Deciding
// one twice (a retry after a killed API) answers 409 and changes nothing.
func (l *loadRun) approve(ctx context.Context) {
	for ctx.Err() == nil {
		a, err := l.reviewer.do("GET", "/api/approvals?status=pending&limit=50", nil, 30*time.Second)
		if err == nil && a.Status == http.StatusOK {
			rows, _ := a.Body["data"].([]any)
			for _, r := range rows {
				id := fmt.Sprint(r.(map[string]any)["id"])
				d, err := l.reviewer.do("POST", "/api/approvals/"+id+"/approve", jsonBody(map[string]any{"comment": "chaos"}), time.Minute)
				switch {
				case err != nil:
				case d.Status != http.StatusOK && d.Status != http.StatusConflict:
					l.fail(fmt.Sprintf("approve %s: %d %s", id, d.Status, d.Raw))
				}
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// onePagePDF is a valid one-page PDF whose text layer holds text.
func onePagePDF(text string) []byte {
	content := "BT /F1 24 Tf 50 700 Td (" + text + ") Tj ET"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	out := "%PDF-1.4\n"
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = len(out)
		out += fmt.Sprintf("%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := len(out)
	out += fmt.Sprintf("xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offsets {
		out += fmt.Sprintf("%010d 00000 n \n", o)
	}
	out += fmt.Sprintf("trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return []byte(out)
}
