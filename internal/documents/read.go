package documents

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Text reads the document's text. A PDF page with a text layer (at least MinTextChars
// letters and digits) is read with `pdftotext -layout`; a page without one (a scan) is
// rasterised with pdftoppm and OCR'd, as is an image. OCR runs tesseract with orientation
// detection for pages that read badly, and keeps each word's confidence. An encrypted PDF
// is first decrypted by qpdf (password on standard input) into a private temporary file.
//
// Errors (*Error with Stage "text"): ErrUnsupported, ErrPasswordRequired, ErrCorrupt, ErrTool.
func (e *Engine) Text(ctx context.Context, data []byte, pw Password) (*TextResult, error) {
	f := Sniff(data)
	switch {
	case f == FormatUnknown:
		return nil, stageErr(StageText, ErrUnsupported, "the file is not a PDF, PNG, JPEG or TIFF", nil)
	case f.IsImage():
		return e.imageText(ctx, f, data)
	default:
		return e.pdfText(ctx, data, pw)
	}
}

func (e *Engine) imageText(ctx context.Context, f Format, data []byte) (*TextResult, error) {
	img, err := decodeImage(f, data, e.cfg.MaxPixels)
	if err != nil {
		return nil, stageErr(StageText, ErrCorrupt, "the "+string(f)+" image cannot be decoded", err)
	}
	dir, cleanup, err := e.workdir(StageText)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	// Turn the picture as the camera said it was held before reading it.
	exif := exifRotation(f, data)
	lines, rot, err := e.ocrPage(ctx, dir, rotateGray(toGray(img), exif), 1)
	if err != nil {
		return nil, err
	}
	t := &TextResult{Source: SourceOCR, Pages: 1, OCRPages: 1, Rotation: (exif + rot) % 360, Lines: lines}
	t.finish()
	return t, nil
}

func (e *Engine) pdfText(ctx context.Context, data []byte, pw Password) (*TextResult, error) {
	dir, cleanup, err := e.workdir(StageText)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	path := filepath.Join(dir, "in.pdf")
	if err := writeFile(StageText, path, data); err != nil {
		return nil, err
	}
	encrypted, err := e.pdfOpens(ctx, StageText, path, pw)
	if err != nil {
		return nil, err
	}
	if encrypted {
		// Decrypt once into the private directory: poppler then needs no password (its
		// -upw flag would put it on the command line) and ignores owner restrictions.
		plain := filepath.Join(dir, "plain.pdf")
		args, stdin := qpdfPasswordArgs(pw)
		res, err := e.run(ctx, StageText, e.cfg.Qpdf, append(args, "--decrypt", path, plain), stdin)
		if err != nil {
			return nil, err
		}
		if res.code != 0 && res.code != 3 {
			return nil, toolError(StageText, ErrCorrupt, "the PDF cannot be decrypted", "qpdf", res)
		}
		path = plain
	}
	res, err := e.run(ctx, StageText, e.cfg.Pdftotext,
		[]string{"-layout", "-enc", "UTF-8", "-f", "1", "-l", strconv.Itoa(e.cfg.MaxPages), path, "-"}, nil)
	if err != nil {
		return nil, err
	}
	if res.code != 0 {
		return nil, toolError(StageText, ErrCorrupt, "the PDF's text cannot be read", "pdftotext", res)
	}
	pages := strings.Split(string(res.stdout), "\f")
	if len(pages) > 1 && strings.TrimSpace(pages[len(pages)-1]) == "" {
		pages = pages[:len(pages)-1] // pdftotext ends every page with a form feed
	}
	t := &TextResult{Pages: len(pages)}
	rotated := false
	for i, text := range pages {
		page := i + 1
		if alnumCount(text) >= e.cfg.MinTextChars {
			t.Lines = append(t.Lines, textLayerLines(page, text)...)
			continue
		}
		g, err := e.rasterise(ctx, dir, path, page)
		if err != nil {
			return nil, err
		}
		lines, rot, err := e.ocrPage(ctx, dir, g, page)
		if err != nil {
			return nil, err
		}
		if !rotated && rot != 0 {
			t.Rotation, rotated = rot, true
		}
		t.OCRPages++
		t.Lines = append(t.Lines, lines...)
	}
	switch t.OCRPages {
	case 0:
		t.Source = SourceTextLayer
	case t.Pages:
		t.Source = SourceOCR
	default:
		t.Source = SourceMixed
	}
	t.finish()
	return t, nil
}

// rasterise renders one PDF page as a grey image at OCRDPI (an uncompressed TIFF: much
// faster to write and read than PNG).
func (e *Engine) rasterise(ctx context.Context, dir, path string, page int) (*image.Gray, error) {
	prefix := filepath.Join(dir, "page-"+strconv.Itoa(page))
	p := strconv.Itoa(page)
	res, err := e.run(ctx, StageText, e.cfg.Pdftoppm,
		// -W/-H bound the rendered area, so an absurd page size cannot exhaust memory.
		[]string{"-r", strconv.Itoa(e.cfg.OCRDPI), "-gray", "-tiff", "-tiffcompression", "none", "-singlefile", "-f", p, "-l", p, "-x", "0", "-y", "0", "-W", "6000", "-H", "6000", path, prefix}, nil)
	if err != nil {
		return nil, err
	}
	if res.code != 0 {
		return nil, toolError(StageText, ErrCorrupt, "the PDF page cannot be rendered", "pdftoppm", res)
	}
	b, err := os.ReadFile(prefix + ".tif")
	if err != nil {
		return nil, stageErr(StageText, ErrCorrupt, "the PDF page cannot be rendered", err)
	}
	_ = os.Remove(prefix + ".tif")
	img, err := decodeImage(FormatTIFF, b, e.cfg.MaxPixels)
	if err != nil {
		return nil, stageErr(StageText, ErrCorrupt, "the PDF page cannot be rendered", err)
	}
	return toGray(img), nil
}
