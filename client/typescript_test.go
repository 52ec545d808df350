package client_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// npm runs an npm command in client/typescript and fails the test with its output.
func npm(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("npm", args...)
	cmd.Dir = "typescript"
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// TestTypeScriptClient installs the pinned packages (package-lock.json), checks that the
// committed types equal a fresh openapi-typescript generation, type-checks and builds the
// client, runs its unit tests (retries, the webhook test vectors shared with webhook/) and
// runs its tour example against the real embedded stack. Node and npm are on the machine
// image; CI fails without them, elsewhere the test says how to get them.
func TestTypeScriptClient(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI needs node and npm for the TypeScript client: apt-get install -y nodejs npm")
		}
		t.Skip("node and npm are needed: apt-get install -y nodejs npm")
	}
	if _, err := os.Stat(filepath.Join("typescript", "node_modules", ".package-lock.json")); err != nil {
		npm(t, nil, "ci", "--no-audit", "--no-fund")
	}
	fresh := filepath.Join(t.TempDir(), "schema.d.ts")
	npm(t, nil, "exec", "--", "openapi-typescript", "../../api/openapi.yaml", "--empty-objects-unknown", "--output", fresh)
	want, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("typescript", "src", "schema.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("client/typescript/src/schema.d.ts differs from a fresh generation from api/openapi.yaml: run `make generate`")
	}
	npm(t, nil, "run", "build")
	npm(t, nil, "test")
	baseURL, key := svc()
	out := npm(t, []string{"SVC_BASE_URL=" + baseURL, "SVC_API_KEY=" + key}, "run", "--silent", "example")
	for _, line := range []string{"same execution on retry: true", "execution: succeeded", "webhook verified: webhook.test", "listed the execution: true"} {
		if !strings.Contains(out, line) {
			t.Errorf("the tour did not print %q:\n%s", line, out)
		}
	}
}
