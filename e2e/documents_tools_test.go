package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/svcplatform/svc/internal/documents/fixtures"
)

// TestDocumentsWithoutQpdf: on a machine without qpdf, svc dev starts, /readyz says the
// documents capability is degraded and how to install what is missing, and an uploaded PDF
// fails at once (no retries) with document.failed naming the stage and the program.
func TestDocumentsWithoutQpdf(t *testing.T) {
	// A PATH with every program the stack uses but qpdf.
	bin := t.TempDir()
	for _, tool := range []string{"pdftotext", "pdftoppm", "tesseract"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Fatalf("%s is not installed: run make deps (%v)", tool, err)
		}
		if err := os.Symlink(path, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	s := boot(t, t.TempDir(), bootOptions{})
	c := client{t: t, base: s.BaseURL, key: s.Credentials.APIKey}
	sink := newEventSink(t)
	sink.subscribe(c, "document.failed")

	r := c.do("GET", "/readyz", nil)
	checks, _ := r.data(t)["checks"].(map[string]any)
	if r.Status != 200 || r.data(t)["status"] != "degraded" ||
		!strings.Contains(str(checks["documents"]), "qpdf") || !strings.Contains(str(checks["documents"]), "apt-get install -y qpdf") {
		t.Fatalf("/readyz = %d %s, want 200 degraded naming qpdf and its install command", r.Status, r.Raw)
	}

	up := uploadFile(c, "npwp.pdf", fixtures.NPWPTextPDF(t), nil)
	if up.Status != 202 {
		t.Fatalf("upload = %d %s", up.Status, up.Raw)
	}
	id := str(up.data(t)["id"])
	d := document(t, c, id, 60*time.Second, "failed")
	if d["failedStage"] != "inspect" || !strings.Contains(str(d["errorMessage"]), "qpdf is not installed") {
		t.Errorf("failed document = %v", d)
	}
	failed := waitDocument(t, sink, "document.failed", id)
	if failed.Data["stage"] != "inspect" || !strings.Contains(str(failed.Data["errorMessage"]), "apt-get install -y qpdf") {
		t.Errorf("document.failed = %v", failed.Data)
	}
	// At once: the stage ran once, its retries never did (the history records each activity's
	// last attempt on its started event).
	it := s.App.Temporal.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil && a.GetAttempt() != 1 {
			t.Errorf("an activity of the pipeline ran %d attempts; a missing program is not retried", a.GetAttempt())
		}
	}
}
