package documents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// toolResult is what one run of an external program produced.
type toolResult struct {
	stdout []byte
	stderr []byte
	code   int
}

// limitedBuffer keeps at most max bytes and drops the rest, so that a hostile file cannot
// make a tool's output exhaust memory.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room < len(p) {
		if room > 0 {
			l.buf.Write(p[:room])
		}
		l.cut = true
		return len(p), nil
	}
	return l.buf.Write(p)
}

// run executes an external program with a timeout (the smaller of ctx's deadline and the
// engine's tool timeout), a fixed environment (OMP_THREAD_LIMIT=1, so tesseract uses one
// thread), optional standard input, and capped outputs. A non-zero exit is not an error:
// the caller interprets res.code. err is an ErrTool stage error when the program is
// missing, killed or timed out. args are never logged: they may be file paths of documents.
func (e *Engine) run(ctx context.Context, stage Stage, bin string, args []string, stdin []byte) (toolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.ToolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = e.env
	cmd.WaitDelay = 2 * time.Second
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out := &limitedBuffer{max: e.cfg.MaxToolOutput}
	errOut := &limitedBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, errOut
	start := time.Now()
	err := cmd.Run()
	name := filepath.Base(bin)
	e.log.DebugContext(ctx, "docintel tool", "tool", name, "stage", string(stage), "duration", time.Since(start))
	res := toolResult{stdout: out.buf.Bytes(), stderr: errOut.buf.Bytes()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return res, nil
	case ctx.Err() != nil:
		return res, stageErr(stage, ErrTool, name+" timed out or was cancelled", ctx.Err())
	case errors.As(err, &exitErr) && exitErr.Exited():
		res.code = exitErr.ExitCode()
		return res, nil
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
		return res, stageErr(stage, ErrToolMissing, fmt.Sprintf("%s is not installed on the worker (%s)", name, InstallCommand([]string{name})), err)
	default:
		return res, stageErr(stage, ErrTool, name+" could not run", err)
	}
}

// toolPackages are the Debian packages of the external programs (APT_PACKAGES lists them).
var toolPackages = map[string]string{"qpdf": "qpdf", "pdftotext": "poppler-utils", "pdftoppm": "poppler-utils", "tesseract": "tesseract-ocr"}

// MissingTools lists the external programs the engine needs that are not installed.
func (e *Engine) MissingTools() []string {
	var out []string
	for _, bin := range []string{e.cfg.Qpdf, e.cfg.Pdftotext, e.cfg.Pdftoppm, e.cfg.Tesseract} {
		if _, err := exec.LookPath(bin); err != nil {
			out = append(out, filepath.Base(bin))
		}
	}
	return out
}

// InstallCommand is the command that installs the given programs on Debian.
func InstallCommand(tools []string) string {
	var pkgs []string
	for _, t := range tools {
		p := toolPackages[t]
		if p == "" {
			p = t
		}
		if !slices.Contains(pkgs, p) {
			pkgs = append(pkgs, p)
		}
	}
	return "apt-get install -y " + strings.Join(pkgs, " ")
}

// workdir makes a private (0700) temporary directory for one stage run.
func (e *Engine) workdir(stage Stage) (string, func(), error) {
	dir, err := os.MkdirTemp(e.cfg.TempDir, "docintel-*")
	if err != nil {
		return "", nil, stageErr(stage, ErrTool, "cannot create a temporary directory", err)
	}
	return dir, func() { _ = os.RemoveAll(dir) }, nil
}

func writeFile(stage Stage, path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return stageErr(stage, ErrTool, "cannot write a temporary file", err)
	}
	return nil
}

// firstLine returns the first line of a tool's stderr, trimmed, for error causes.
func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// toolError wraps a failing exit with the tool's first stderr line.
func toolError(stage Stage, kind error, msg, tool string, res toolResult) *Error {
	return stageErr(stage, kind, msg, fmt.Errorf("%s exit %d: %s", tool, res.code, firstLine(res.stderr)))
}

var _ io.Writer = (*limitedBuffer)(nil)
