package config

import (
	"os"
	"strings"
	"testing"
)

const (
	readmeStart = "<!-- config-keys:start -->\n"
	readmeEnd   = "<!-- config-keys:end -->"
)

// TestREADMEListsEveryKey keeps the README's configuration table equal to the keys table.
// Run with UPDATE_README=1 to rewrite it.
func TestREADMEListsEveryKey(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, readmeStart), strings.Index(readme, readmeEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the %q ... %q block", readmeStart, readmeEnd)
	}
	want := MarkdownTable()
	got := readme[i+len(readmeStart) : j]
	if got == want {
		return
	}
	if os.Getenv("UPDATE_README") == "1" {
		out := readme[:i+len(readmeStart)] + want + readme[j:]
		if err := os.WriteFile("../README.md", []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("README.md configuration table is out of date; run UPDATE_README=1 go test ./config -run README\nwant:\n%s", want)
}
