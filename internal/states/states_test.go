package states

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const docPath = "../../docs/state-machines.md"

// TestDocumentMatchesTables keeps docs/state-machines.md equal to the tables; run
// UPDATE_DOCS=1 go test ./internal/states to write it.
func TestDocumentMatchesTables(t *testing.T) {
	want := Markdown()
	if os.Getenv("UPDATE_DOCS") == "1" {
		if err := os.WriteFile(filepath.FromSlash(docPath), []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(filepath.FromSlash(docPath))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("docs/state-machines.md differs from the transition tables; run UPDATE_DOCS=1 go test ./internal/states\nwant:\n%s", want)
	}
}

// TestEveryMoveOfEveryTable walks every ordered pair of states of every table: an allowed
// move is drawn on the diagram, a forbidden one is not, and its error is SPEC 3.5's message.
func TestEveryMoveOfEveryTable(t *testing.T) {
	for _, tb := range All() {
		diagram := tb.Mermaid()
		allowed := 0
		for _, p := range tb.Pairs() {
			arrow := "    " + p.From + " --> " + p.To
			drawn := strings.Contains(diagram, arrow+":") || strings.Contains(diagram, arrow+"\n")
			if drawn != p.Allowed {
				t.Errorf("%s: %s → %s allowed %t, drawn %t", tb.Title(), p.From, p.To, p.Allowed, drawn)
			}
			if p.Allowed {
				allowed++
			}
		}
		if allowed == 0 {
			t.Errorf("%s allows no move", tb.Title())
		}
	}
}
