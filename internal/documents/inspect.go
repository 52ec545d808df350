package documents

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
)

// Inspection is what Inspect learned about a file.
type Inspection struct {
	Format Format `json:"format"`
	MIME   string `json:"mime"`
	// Pages is the page count (1 for an image; a multi-page TIFF is read from its first page).
	Pages int `json:"pages"`
	// Width and Height are an image's size in pixels.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
	// Encrypted is true for an encrypted PDF, including one with only an owner password.
	Encrypted bool `json:"encrypted"`
	// UserPassword is true when the PDF needed a user password (and the right one was given).
	UserPassword bool `json:"userPassword"`
	// Encryption describes the cipher, e.g. "AESv3 256-bit".
	Encryption string `json:"encryption,omitempty"`
	// Repaired is true when the PDF was damaged but its structure could be recovered.
	Repaired bool `json:"repaired,omitempty"`
}

// Inspect detects the format from the bytes and checks that the file can be opened:
// an image is fully decoded; a PDF's encryption and structure are checked with qpdf.
//
// Errors (all *Error with Stage "inspect"): ErrUnsupported for other formats,
// ErrPasswordRequired when a PDF needs a user password and pw is empty or wrong (a PDF with
// only an owner password opens), ErrCorrupt for truncated or unreadable files, ErrTool when
// qpdf cannot run. pw is passed to qpdf on standard input.
func (e *Engine) Inspect(ctx context.Context, data []byte, pw Password) (*Inspection, error) {
	f := Sniff(data)
	if f == FormatUnknown {
		return nil, stageErr(StageInspect, ErrUnsupported, "the file is not a PDF, PNG, JPEG or TIFF", nil)
	}
	in := &Inspection{Format: f, MIME: f.MIME(), Pages: 1}
	if f.IsImage() {
		img, err := decodeImage(f, data, e.cfg.MaxPixels)
		if err != nil {
			return nil, stageErr(StageInspect, ErrCorrupt, "the "+string(f)+" image cannot be decoded", err)
		}
		in.Width, in.Height = img.Bounds().Dx(), img.Bounds().Dy()
		return in, nil
	}
	if err := e.inspectPDF(ctx, data, pw, in); err != nil {
		return nil, err
	}
	return in, nil
}

// pdfTail is how far from the end a reader looks for the %%EOF marker.
const pdfTail = 1024

// qpdfJSON is the part of `qpdf --json` output Inspect reads.
type qpdfJSON struct {
	Pages   []json.RawMessage `json:"pages"`
	Encrypt struct {
		Encrypted            bool `json:"encrypted"`
		UserPasswordMatched  bool `json:"userpasswordmatched"`
		OwnerPasswordMatched bool `json:"ownerpasswordmatched"`
		Parameters           struct {
			Bits   int    `json:"bits"`
			Method string `json:"method"`
		} `json:"parameters"`
	} `json:"encrypt"`
}

func (e *Engine) inspectPDF(ctx context.Context, data []byte, pw Password, in *Inspection) error {
	tail := data[max(0, len(data)-pdfTail):]
	if !bytes.Contains(tail, []byte("%%EOF")) {
		return stageErr(StageInspect, ErrCorrupt, "the PDF is truncated (no end-of-file marker)", nil)
	}
	dir, cleanup, err := e.workdir(StageInspect)
	if err != nil {
		return err
	}
	defer cleanup()
	path := filepath.Join(dir, "in.pdf")
	if err := writeFile(StageInspect, path, data); err != nil {
		return err
	}
	if _, err := e.pdfOpens(ctx, StageInspect, path, pw); err != nil {
		return err
	}
	args, stdin := qpdfPasswordArgs(pw)
	args = append(args, "--json", "--json-key=encrypt", "--json-key=pages", path)
	res, err := e.run(ctx, StageInspect, e.cfg.Qpdf, args, stdin)
	if err != nil {
		return err
	}
	// 0: fine, 3: warnings (a damaged file qpdf recovered), 2: errors.
	if res.code != 0 && res.code != 3 {
		return toolError(StageInspect, ErrCorrupt, "the PDF cannot be read", "qpdf", res)
	}
	var j qpdfJSON
	if err := json.Unmarshal(res.stdout, &j); err != nil {
		return stageErr(StageInspect, ErrCorrupt, "the PDF cannot be read", err)
	}
	if len(j.Pages) == 0 {
		return stageErr(StageInspect, ErrCorrupt, "the PDF has no pages", nil)
	}
	in.Pages = len(j.Pages)
	in.Repaired = res.code == 3 && bytes.Contains(res.stderr, []byte("damaged"))
	in.Encrypted = j.Encrypt.Encrypted
	if in.Encrypted {
		in.UserPassword = pw != ""
		in.Encryption = strings.TrimSpace(j.Encrypt.Parameters.Method + " " + strconv.Itoa(j.Encrypt.Parameters.Bits) + "-bit")
	}
	return nil
}

// pdfOpens asks qpdf whether the file needs a password other than pw (exit 0), is not
// encrypted (2, silently) or is encrypted and opens with pw or with no password at all (3).
// It reports whether the file is encrypted, or ErrPasswordRequired.
func (e *Engine) pdfOpens(ctx context.Context, stage Stage, path string, pw Password) (encrypted bool, err error) {
	args, stdin := qpdfPasswordArgs(pw)
	res, err := e.run(ctx, stage, e.cfg.Qpdf, append(args, "--requires-password", path), stdin)
	if err != nil {
		return false, err
	}
	switch {
	case res.code == 0 && pw == "":
		return true, stageErr(stage, ErrPasswordRequired, "the PDF is encrypted and needs a password", nil)
	case res.code == 0:
		return true, stageErr(stage, ErrPasswordRequired, "the password for the encrypted PDF is incorrect", nil)
	case res.code == 3:
		return true, nil
	case res.code == 2 && !qpdfFailed(res.stderr):
		// Not encrypted (silently, or with warnings about damage qpdf can repair).
		return false, nil
	default:
		return false, toolError(stage, ErrCorrupt, "the PDF cannot be read", "qpdf", res)
	}
}

// qpdfPasswordArgs hands the password to qpdf on standard input (--password-file=-), so it
// appears in no command line (/proc/<pid>/cmdline is readable by every local user).
func qpdfPasswordArgs(pw Password) ([]string, []byte) {
	if pw == "" {
		return nil, nil
	}
	return []string{"--password-file=-"}, []byte(string(pw) + "\n")
}

// qpdfFailed reports whether qpdf's stderr holds an error ("qpdf: <file>: <message>"), not
// only warnings ("WARNING: ...") about damage it repaired.
func qpdfFailed(stderr []byte) bool {
	for _, l := range strings.Split(string(stderr), "\n") {
		if strings.HasPrefix(l, "qpdf: ") && !strings.Contains(l, "succeeded with warnings") {
			return true
		}
	}
	return false
}
