package webhook_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"strings"
	"testing"
)

// TestREADMEReceiverCompiles type-checks the receiver snippet in the README's Webhooks section
// against this package, so the documented receiver cannot drift from the API.
func TestREADMEReceiverCompiles(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i := strings.Index(readme, "## Webhooks")
	if i < 0 {
		t.Fatal("README.md has no Webhooks section")
	}
	start := strings.Index(readme[i:], "```go\n")
	if start < 0 {
		t.Fatal("the Webhooks section has no Go snippet")
	}
	code := readme[i+start+len("```go\n"):]
	code = code[:strings.Index(code, "```")]
	if n := strings.Count(strings.TrimSpace(code), "\n") + 1; n > 16 {
		t.Errorf("the README receiver is %d lines; it promises about 15", n)
	}
	src := "package main\n\nimport (\n\t\"io\"\n\t\"net/http\"\n\t\"os\"\n\n\t\"github.com/svcplatform/svc/webhook\"\n)\n\n" + code
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "readme_receiver.go", src, 0)
	if err != nil {
		t.Fatalf("README receiver does not parse: %v\n%s", err, src)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check("main", fset, []*ast.File{f}, nil); err != nil {
		t.Fatalf("README receiver does not type-check: %v\n%s", err, src)
	}
	if !strings.Contains(code, "webhook.Verify(") {
		t.Fatal("the README receiver must verify with webhook.Verify")
	}
}
