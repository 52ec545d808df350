package documents_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/documents/fixtures"
)

// now is the reference date of the tests (fixtures' passports expire in 2033).
var now = time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)

// newEngine returns an engine and fails (not skips) when the external tools are missing:
// CI installs them from APT_PACKAGES.
func newEngine(t testing.TB) *docintel.Engine {
	t.Helper()
	e := docintel.NewEngine(docintel.Config{})
	if err := e.CheckTools(context.Background()); err != nil {
		t.Fatalf("docintel tools missing (apt-get install $(cat docintel/APT_PACKAGES)): %v", err)
	}
	return e
}

// TestFixturesThroughStages runs every named fixture through all stages and checks the
// outcome the document pipeline must reach: status, type, fields, flags or the stage error.
func TestFixturesThroughStages(t *testing.T) {
	e := newEngine(t)
	npwp := fixtures.DefaultNPWP().ExpectedFields()
	ktp := fixtures.DefaultKTP().ExpectedFields()
	passport := fixtures.DefaultPassport().ExpectedFields()
	tests := []struct {
		name     string
		data     func(testing.TB) []byte
		password docintel.Password
		// Either an error...
		wantErr   error
		wantStage docintel.Stage
		// ...or an outcome.
		wantSource docintel.TextSource
		wantType   string
		wantStatus docintel.Status // "" accepts either status (see below)
		wantFields map[string]string
		wantRotate bool
		wantFlags  []string
	}{
		{name: "npwp text pdf", data: fixtures.NPWPTextPDF, wantSource: docintel.SourceTextLayer, wantType: "npwp", wantStatus: docintel.StatusExtracted, wantFields: npwp},
		{name: "npwp with a wrong check digit", data: fixtures.NPWPBadCheckDigitPDF, wantSource: docintel.SourceTextLayer, wantType: "npwp", wantStatus: docintel.StatusRequiresReview,
			wantFields: map[string]string{"name": npwp["name"], "npwp_number": "09.254.294.8-407.000"}, wantFlags: []string{"npwp_number:check_digit"}},
		{name: "npwp photo png", data: fixtures.NPWPPhotoPNG, wantSource: docintel.SourceOCR, wantType: "npwp", wantFields: npwp},
		{name: "npwp scanned pdf", data: fixtures.NPWPScanPDF, wantSource: docintel.SourceOCR, wantType: "npwp", wantFields: npwp},
		{name: "npwp degraded scan", data: fixtures.NPWPDegradedScanPDF, wantSource: docintel.SourceOCR, wantType: "npwp", wantFields: map[string]string{"npwp_number": npwp["npwp_number"], "name": npwp["name"]}},
		{name: "npwp rotated photo", data: fixtures.NPWPRotatedPhotoJPEG, wantSource: docintel.SourceOCR, wantType: "npwp", wantFields: npwp, wantRotate: true},
		{name: "npwp phone photo with EXIF orientation", data: fixtures.NPWPPhoneJPEG, wantSource: docintel.SourceOCR, wantType: "npwp", wantFields: npwp, wantRotate: true},
		{name: "npwp tiff", data: fixtures.NPWPTIFF, wantSource: docintel.SourceOCR, wantType: "npwp", wantFields: npwp},
		{name: "aes-256 pdf with its user password", data: fixtures.NPWPEncryptedPDF, password: fixtures.UserPassword, wantSource: docintel.SourceTextLayer, wantType: "npwp", wantStatus: docintel.StatusExtracted, wantFields: npwp},
		{name: "aes-256 pdf without password", data: fixtures.NPWPEncryptedPDF, wantErr: docintel.ErrPasswordRequired, wantStage: docintel.StageInspect},
		{name: "aes-256 pdf with a wrong password", data: fixtures.NPWPEncryptedPDF, password: "wrong", wantErr: docintel.ErrPasswordRequired, wantStage: docintel.StageInspect},
		{name: "owner-password-only pdf opens", data: fixtures.NPWPOwnerOnlyPDF, wantSource: docintel.SourceTextLayer, wantType: "npwp", wantStatus: docintel.StatusExtracted, wantFields: npwp},
		{name: "truncated pdf", data: fixtures.TruncatedPDF, wantErr: docintel.ErrCorrupt, wantStage: docintel.StageInspect},
		{name: "not a document", data: fixtures.NotADocument, wantErr: docintel.ErrUnsupported, wantStage: docintel.StageInspect},
		{name: "ktp text pdf", data: fixtures.KTPTextPDF, wantSource: docintel.SourceTextLayer, wantType: "ktp", wantStatus: docintel.StatusExtracted, wantFields: ktp},
		{name: "ktp photo", data: fixtures.KTPPhotoJPEG, wantSource: docintel.SourceOCR, wantType: "ktp", wantFields: ktp},
		{name: "passport text pdf", data: fixtures.PassportTextPDF, wantSource: docintel.SourceTextLayer, wantType: "passport", wantStatus: docintel.StatusExtracted, wantFields: passport},
		{name: "passport photo with MRZ", data: fixtures.PassportPhotoPNG, wantSource: docintel.SourceOCR, wantType: "passport", wantFields: passport},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := e.Process(context.Background(), tt.data(t), docintel.ProcessOptions{Password: tt.password, Now: now})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
				if got := docintel.StageOf(err); got != tt.wantStage {
					t.Errorf("stage = %q, want %q", got, tt.wantStage)
				}
				if msg := docintel.Message(err); msg == "" || strings.Contains(msg, "/tmp") || strings.Contains(msg, "wrong") {
					t.Errorf("message %q shows a path or the password", msg)
				}
				if !docintel.IsPermanent(err) {
					t.Errorf("%v should be permanent (no retry)", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Process: %v", err)
			}
			if r.Text.Source != tt.wantSource {
				t.Errorf("text source = %s, want %s", r.Text.Source, tt.wantSource)
			}
			if tt.wantRotate && r.Text.Rotation == 0 {
				t.Error("the rotated photo was not turned upright")
			}
			if r.Classification.Type != tt.wantType {
				t.Fatalf("type = %s (%v), want %s", r.Classification.Type, r.Classification.Scores, tt.wantType)
			}
			d := r.Decision
			for name, want := range tt.wantFields {
				if got := d.Fields[name]; got.Value != want {
					t.Errorf("%s = %q (confidence %.3f), want %q", name, got.Value, got.Confidence, want)
				}
			}
			if !reflect.DeepEqual(d.Flags, tt.wantFlags) && tt.wantFlags != nil {
				t.Errorf("flags = %v, want %v", d.Flags, tt.wantFlags)
			}
			switch {
			case tt.wantStatus != "" && d.Status != tt.wantStatus:
				t.Errorf("status = %s (score %.3f, flags %v), want %s", d.Status, d.ConfidenceScore, d.Flags, tt.wantStatus)
			case d.Status == docintel.StatusExtracted && (len(d.Flags) > 0 || d.ConfidenceScore < docintel.DefaultThreshold):
				t.Errorf("extracted with flags %v and score %.3f", d.Flags, d.ConfidenceScore)
			case d.Status == docintel.StatusRequiresReview && len(d.Flags) == 0:
				t.Errorf("requires review without a flag saying why (score %.3f)", d.ConfidenceScore)
			}
			t.Logf("status %s score %.3f flags %v source %s rotation %d", d.Status, d.ConfidenceScore, d.Flags, r.Text.Source, r.Text.Rotation)
		})
	}
}

func TestInspect(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	in, err := e.Inspect(ctx, fixtures.NPWPEncryptedPDF(t), fixtures.UserPassword)
	if err != nil {
		t.Fatal(err)
	}
	if in.Format != docintel.FormatPDF || !in.Encrypted || !in.UserPassword || in.Encryption != "AESv3 256-bit" || in.Pages != 1 {
		t.Errorf("encrypted inspection = %+v", in)
	}
	in, err = e.Inspect(ctx, fixtures.NPWPEncryptedPDF(t), fixtures.OwnerPassword)
	if err != nil || !in.Encrypted {
		t.Errorf("the owner password should open the file too: %+v %v", in, err)
	}
	in, err = e.Inspect(ctx, fixtures.NPWPOwnerOnlyPDF(t), "")
	if err != nil || !in.Encrypted || in.UserPassword {
		t.Errorf("owner-only inspection = %+v, %v", in, err)
	}
	in, err = e.Inspect(ctx, fixtures.DamagedPDF(t), "")
	if err != nil || !in.Repaired {
		t.Errorf("a damaged but repairable PDF: %+v, %v", in, err)
	}
	in, err = e.Inspect(ctx, fixtures.NPWPPhotoPNG(t), "")
	if err != nil || in.Format != docintel.FormatPNG || in.Width == 0 || in.Pages != 1 {
		t.Errorf("png inspection = %+v, %v", in, err)
	}

	var se *docintel.Error
	_, err = e.Inspect(ctx, fixtures.NPWPEncryptedPDF(t), "")
	if !errors.As(err, &se) || se.Msg != "the PDF is encrypted and needs a password" {
		t.Errorf("no password: %v", err)
	}
	_, err = e.Inspect(ctx, fixtures.NPWPEncryptedPDF(t), "nope")
	if !errors.As(err, &se) || se.Msg != "the password for the encrypted PDF is incorrect" {
		t.Errorf("wrong password: %v", err)
	}

	png := fixtures.NPWPPhotoPNG(t)
	broken := [][]byte{
		png[:len(png)/2],                                    // truncated image
		[]byte("%PDF-1.7\n%%EOF\n"),                         // a header and a trailer, nothing else
		append([]byte("%PDF-1.4\n"), make([]byte, 3000)...), // zeros
	}
	for i, b := range broken {
		if _, err := e.Inspect(ctx, b, ""); !errors.Is(err, docintel.ErrCorrupt) || !docintel.IsPermanent(err) {
			t.Errorf("broken file %d: error = %v, want a permanent ErrCorrupt", i, err)
		}
	}
}

func TestTextWrongPasswordAndUnsupported(t *testing.T) {
	e := newEngine(t)
	_, err := e.Text(context.Background(), fixtures.NPWPEncryptedPDF(t), "wrong")
	if !errors.Is(err, docintel.ErrPasswordRequired) || docintel.StageOf(err) != docintel.StageText {
		t.Errorf("Text with a wrong password: %v", err)
	}
	_, err = e.Text(context.Background(), []byte("GIF89a......"), "")
	if !errors.Is(err, docintel.ErrUnsupported) {
		t.Errorf("Text of a GIF: %v", err)
	}
}

func TestToolTimeoutIsRetryable(t *testing.T) {
	e := docintel.NewEngine(docintel.Config{ToolTimeout: time.Nanosecond})
	_, err := e.Inspect(context.Background(), fixtures.NPWPTextPDF(t), "")
	if !errors.Is(err, docintel.ErrTool) || docintel.IsPermanent(err) {
		t.Errorf("error = %v, want a retryable ErrTool", err)
	}
	e = docintel.NewEngine(docintel.Config{Qpdf: "/nonexistent/qpdf"})
	if err := e.CheckTools(context.Background()); err == nil {
		t.Error("CheckTools accepted a missing qpdf")
	}
}

func TestPasswordNeverPrints(t *testing.T) {
	pw := docintel.Password("hunter2")
	for _, s := range []string{pw.String(), pw.GoString(), pw.LogValue().String()} {
		if s != "[redacted]" {
			t.Errorf("password printed as %q", s)
		}
	}
	if _, err := pw.MarshalJSON(); err == nil {
		t.Error("a password marshalled to JSON")
	}
	if slices.Contains([]string{pw.String()}, "hunter2") {
		t.Error("leak")
	}
}

// TestMissingProgramIsPermanent: a program that is not installed fails the stage at once
// (retrying cannot install it), naming the program and the command that installs it.
func TestMissingProgramIsPermanent(t *testing.T) {
	e := docintel.NewEngine(docintel.Config{Qpdf: "/nonexistent/qpdf"})
	if got := e.MissingTools(); !slices.Equal(got, []string{"qpdf"}) {
		t.Errorf("MissingTools = %v, want [qpdf]", got)
	}
	_, err := e.Inspect(context.Background(), fixtures.NPWPTextPDF(t), "")
	if !errors.Is(err, docintel.ErrToolMissing) || !docintel.IsPermanent(err) || docintel.StageOf(err) != docintel.StageInspect {
		t.Fatalf("error = %v, want a permanent ErrToolMissing in inspect", err)
	}
	if msg := docintel.Message(err); msg != "qpdf is not installed on the worker (apt-get install -y qpdf)" {
		t.Errorf("message = %q", msg)
	}
	if got := docintel.InstallCommand([]string{"pdftotext", "pdftoppm", "tesseract"}); got != "apt-get install -y poppler-utils tesseract-ocr" {
		t.Errorf("InstallCommand = %q", got)
	}
}
