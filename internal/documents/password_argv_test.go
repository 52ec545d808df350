package documents_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/documents/fixtures"
)

// TestPasswordNeverOnACommandLine: the PDF password reaches qpdf on standard input only, so it
// never shows in a process list. A wrapper around the real qpdf records every command line.
func TestPasswordNeverOnACommandLine(t *testing.T) {
	qpdfPath, err := exec.LookPath("qpdf")
	if err != nil {
		t.Fatalf("qpdf is required (docintel/APT_PACKAGES): %v", err)
	}
	dir := t.TempDir()
	argvLog := filepath.Join(dir, "argv.log")
	wrapper := filepath.Join(dir, "qpdf")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + argvLog + "'\nexec '" + qpdfPath + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	e := docintel.NewEngine(docintel.Config{Qpdf: wrapper})
	pdf := fixtures.NPWPEncryptedPDF(t)
	if _, err := e.Inspect(context.Background(), pdf, docintel.Password(fixtures.UserPassword)); err != nil {
		t.Fatalf("the right password must open the PDF through qpdf: %v", err)
	}
	argv, err := os.ReadFile(argvLog)
	if err != nil || len(argv) == 0 {
		t.Fatalf("qpdf was not run through the wrapper: %v", err)
	}
	if strings.Contains(string(argv), fixtures.UserPassword) {
		t.Fatalf("the password appeared on a qpdf command line:\n%s", argv)
	}
}
