package workflows

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestDocumentReplay replays the recorded histories of the document workflows (a text PDF
// extracted, one sent to review, one failed in inspect, an encrypted PDF through a wrong and
// the right password, a correction), so that a change that would break running documents fails
// `make test`: add workflow.GetVersion to such a change rather than re-recording. The
// histories come from the real stack: SVC_RECORD_HISTORIES=1 go test ./e2e -run TestDocumentsEndToEnd.
func TestDocumentReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(historyDir, "document_*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("%d recorded document histories in testdata/, want 5", len(files))
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(DocumentPipeline, workflow.RegisterOptions{Name: DocumentPipelineName})
			r.RegisterWorkflowWithOptions(DocumentCorrection, workflow.RegisterOptions{Name: DocumentCorrectionName})
			if err := r.ReplayWorkflowHistoryFromJSONFile(log.NewStructuredLogger(slog.New(slog.DiscardHandler)), file); err != nil {
				t.Fatalf("replay %s: %v", file, err)
			}
		})
	}
}
