package documents

import (
	"reflect"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/ids"
)

// A pipeline run names its extraction and its events by the document alone: the same run at
// other times writes the same ids, so a local activity re-run after a lost workflow task
// finds what it wrote (workflows.VersionStableIDs).
func TestDocumentPipelineIDsDoNotDependOnTime(t *testing.T) {
	run := func(start time.Time) (string, []string) {
		f := newFakeDocuments(t)
		env := newPipeline(t, f)
		env.SetStartTime(start)
		env.ExecuteWorkflow(DocumentPipelineName, docInput)
		if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
			t.Fatalf("run: %v", env.GetWorkflowError())
		}
		var evs []string
		for _, e := range f.events {
			evs = append(evs, e.EventID)
		}
		return f.finishes[0].ExtractionID, evs
	}
	x1, e1 := run(time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC))
	x2, e2 := run(time.Date(2026, 9, 30, 23, 0, 0, 0, time.UTC))
	if x1 != x2 || x1 != ids.Within(ids.Extraction, docInput.DocumentID, "pipeline") || !reflect.DeepEqual(e1, e2) || len(e1) != 3 {
		t.Fatalf("ids moved with the clock: extraction %s / %s, events %v / %v", x1, x2, e1, e2)
	}
}
