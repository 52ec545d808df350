package documents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"
)

// Config configures an Engine. The zero value works on a machine with the Debian packages
// of APT_PACKAGES installed.
type Config struct {
	// Tesseract, Pdftotext, Pdftoppm and Qpdf are program names (looked up in PATH) or paths.
	Tesseract, Pdftotext, Pdftoppm, Qpdf string
	// TessdataDir overrides tesseract's data directory (TESSDATA_PREFIX); empty keeps the default.
	TessdataDir string
	// Language is tesseract's -l value; default "eng".
	Language string
	// ToolTimeout bounds each run of an external program; default 60s.
	ToolTimeout time.Duration
	// MaxPages is how many pages of a PDF are read; default 5 (identity documents are short).
	MaxPages int
	// MaxPixels refuses larger images (decompression bombs); default 50 million.
	MaxPixels int
	// OCRDPI is the resolution scanned PDF pages are rasterised at; default 300.
	OCRDPI int
	// MinTextChars is how many letters and digits a PDF page's text layer needs before it
	// is used instead of OCR; default 25.
	MinTextChars int
	// MaxToolOutput caps what is read from a program's standard output; default 16 MiB.
	MaxToolOutput int
	// TempDir is where private working directories are made; default os.TempDir().
	TempDir string
	// Logger receives debug lines (tool names and durations only); default discards.
	Logger *slog.Logger
}

// Engine runs the stages that need external programs (Inspect, Text). It is safe for
// concurrent use.
type Engine struct {
	cfg Config
	env []string
	log *slog.Logger
}

// NewEngine returns an Engine with cfg's zero fields set to their defaults.
func NewEngine(cfg Config) *Engine {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&cfg.Tesseract, "tesseract")
	def(&cfg.Pdftotext, "pdftotext")
	def(&cfg.Pdftoppm, "pdftoppm")
	def(&cfg.Qpdf, "qpdf")
	def(&cfg.Language, "eng")
	if cfg.ToolTimeout <= 0 {
		cfg.ToolTimeout = 60 * time.Second
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = 5
	}
	if cfg.MaxPixels <= 0 {
		cfg.MaxPixels = 50_000_000
	}
	if cfg.OCRDPI <= 0 {
		cfg.OCRDPI = 300
	}
	if cfg.MinTextChars <= 0 {
		cfg.MinTextChars = 25
	}
	if cfg.MaxToolOutput <= 0 {
		cfg.MaxToolOutput = 16 << 20
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	// A minimal, fixed environment: no inherited secrets, one OpenMP thread for tesseract
	// (it is much slower with threads fighting over 2 cores), the C locale for stable output.
	env := []string{"OMP_THREAD_LIMIT=1", "LC_ALL=C", "PATH=" + os.Getenv("PATH")}
	if cfg.TessdataDir != "" {
		env = append(env, "TESSDATA_PREFIX="+cfg.TessdataDir)
	}
	return &Engine{cfg: cfg, env: env, log: log}
}

// CheckTools verifies that every external program runs and that tesseract has the
// configured language and the orientation model (osd). Call it at worker start-up.
func (e *Engine) CheckTools(ctx context.Context) error {
	var errs []error
	if missing := e.MissingTools(); len(missing) > 0 {
		return fmt.Errorf("not installed: %s (install with: %s)", strings.Join(missing, ", "), InstallCommand(missing))
	}
	res, err := e.run(ctx, StageText, e.cfg.Tesseract, []string{"--list-langs"}, nil)
	if err != nil {
		return err
	}
	langs := string(res.stdout) + string(res.stderr)
	for _, want := range append(strings.Split(e.cfg.Language, "+"), "osd") {
		if !containsLine(langs, want) {
			errs = append(errs, fmt.Errorf("tesseract has no %q traineddata", want))
		}
	}
	return errors.Join(errs...)
}

func containsLine(s, line string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}
