package documents_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/documents/fixtures"
)

// TestResultsSurviveJSON checks that every stage result round-trips through JSON, as it
// does when an activity returns it to a workflow, and that a password cannot.
func TestResultsSurviveJSON(t *testing.T) {
	r, err := newEngine(t).Process(context.Background(), fixtures.KTPTextPDF(t), docintel.ProcessOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{
		"inspection": r.Inspection, "text": r.Text, "classification": r.Classification,
		"extraction": r.Extraction, "decision": r.Decision,
	} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back := reflect.New(reflect.TypeOf(v).Elem()).Interface()
		if err := json.Unmarshal(b, back); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(back, v) {
			t.Errorf("%s changed through JSON:\n%s", name, b)
		}
	}
	if _, err := json.Marshal(docintel.ProcessOptions{Password: "secret"}); err == nil {
		t.Error("options holding a password were serialised")
	}
}
