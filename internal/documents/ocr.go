package documents

import (
	"bufio"
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/image/draw"
)

// ocrWord is one word of tesseract's TSV output with its box.
type ocrWord struct {
	block, par, line int
	x, y, w, h       int
	conf             float64
	text             string
}

// parseTSV reads `tesseract ... tsv` output and keeps the words (level 5) that have text.
func parseTSV(b []byte) []ocrWord {
	var words []ocrWord
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		text := strings.TrimSpace(f[11])
		if text == "" {
			continue
		}
		n := make([]int, 10)
		ok := true
		for i := 1; i <= 9; i++ {
			v, err := strconv.Atoi(f[i])
			if err != nil {
				ok = false
				break
			}
			n[i] = v
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		if !ok || err != nil || conf < 0 {
			continue
		}
		words = append(words, ocrWord{block: n[2], par: n[3], line: n[4], x: n[6], y: n[7], w: n[8], h: n[9], conf: conf / 100, text: text})
	}
	return words
}

// ocrLines groups tesseract's words into visual lines. Tesseract's own lines are kept, and
// lines of different blocks that sit at the same height are merged left to right, so a
// label column and its value column form one line, with Gap marking the jump between them.
func ocrLines(page int, words []ocrWord) []Line {
	type unit struct {
		words          []ocrWord
		x0, y0, x1, y1 int
	}
	var units []*unit
	byKey := map[[3]int]*unit{}
	for _, w := range words {
		k := [3]int{w.block, w.par, w.line}
		u := byKey[k]
		if u == nil {
			u = &unit{x0: w.x, y0: w.y, x1: w.x + w.w, y1: w.y + w.h}
			byKey[k] = u
			units = append(units, u)
		}
		u.words = append(u.words, w)
		u.x0, u.y0 = min(u.x0, w.x), min(u.y0, w.y)
		u.x1, u.y1 = max(u.x1, w.x+w.w), max(u.y1, w.y+w.h)
	}
	sort.SliceStable(units, func(i, j int) bool { return units[i].y0+units[i].y1 < units[j].y0+units[j].y1 })
	var merged []*unit
	for _, u := range units {
		cy, hh := (u.y0+u.y1)/2, u.y1-u.y0
		joined := false
		for _, m := range merged {
			mcy, mh := (m.y0+m.y1)/2, m.y1-m.y0
			overlapX := u.x0 < m.x1 && m.x0 < u.x1
			if !overlapX && abs(cy-mcy)*2 < min(hh, mh) {
				m.words = append(m.words, u.words...)
				m.x0, m.y0, m.x1, m.y1 = min(m.x0, u.x0), min(m.y0, u.y0), max(m.x1, u.x1), max(m.y1, u.y1)
				joined = true
				break
			}
		}
		if !joined {
			merged = append(merged, u)
		}
	}
	sort.SliceStable(merged, func(i, j int) bool { return merged[i].y0+merged[i].y1 < merged[j].y0+merged[j].y1 })
	lines := make([]Line, 0, len(merged))
	for _, m := range merged {
		sort.SliceStable(m.words, func(i, j int) bool { return m.words[i].x < m.words[j].x })
		hs := make([]float64, len(m.words))
		for i, w := range m.words {
			hs[i] = float64(w.h)
		}
		gap := 1.6 * median(hs)
		l := Line{Page: page, Source: SourceOCR}
		for i, w := range m.words {
			word := Word{Text: w.text, Conf: w.conf, X0: w.x, X1: w.x + w.w}
			if i > 0 {
				prev := m.words[i-1]
				word.Gap = float64(w.x-(prev.x+prev.w)) > gap
			}
			l.Words = append(l.Words, word)
		}
		lines = append(lines, l)
	}
	return lines
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// ocrQuality scores a recognition: the summed confidence of words with at least two
// letters or digits, and whether it looks like a failed read: few confident words (noise,
// upside down) or words standing on their side (a photo taken at 90 or 270 degrees, which
// tesseract reads word by word but in no useful order).
func ocrQuality(words []ocrWord) (score float64, poor bool) {
	good, total, tall, long := 0, 0, 0, 0
	for _, w := range words {
		n := alnumCount(w.text)
		if n < 2 {
			continue
		}
		total++
		score += w.conf
		if w.conf >= 0.7 {
			good++
		}
		if n >= 4 {
			long++
			if w.h > w.w {
				tall++
			}
		}
	}
	sideways := long > 0 && tall*2 > long
	return score, sideways || good < 5 || float64(good) < 0.6*float64(total)
}

// resize brings a page to a size tesseract reads well: small photos are enlarged, huge
// ones reduced.
func resize(g *image.Gray) *image.Gray {
	switch long := max(g.Rect.Dx(), g.Rect.Dy()); {
	case long < 1400:
		return scaleGray(g, 1800.0/float64(long))
	case long > 4200:
		return scaleGray(g, 3500.0/float64(long))
	}
	return g
}

// enhance is the heavier preparation for pages that read badly: a median filter against
// noise, a flat white background and full contrast.
func enhance(g *image.Gray) *image.Gray {
	n := normalizeBackground(median3(g))
	stretchContrast(n)
	return crop(n, inkBounds(n))
}

func scaleGray(g *image.Gray, f float64) *image.Gray {
	w, h := max(1, int(float64(g.Rect.Dx())*f)), max(1, int(float64(g.Rect.Dy())*f))
	out := image.NewGray(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(out, out.Rect, g, g.Rect, draw.Src, nil)
	return out
}

// ocrPage recognises one page image, trying harder only when a read looks like a failure:
//  1. the page as is (grey, resized, cropped to its ink): tesseract's own binarisation
//     is best on clean photos and scans;
//  2. if that reads badly, tesseract's orientation detection (psm 0, osd model) proposes a
//     rotation, and the turned page is read;
//  3. if it still reads badly, the page is denoised, its background flattened and its
//     contrast stretched (faded or noisy scans), and read again (turned if needed).
//
// The read with the best score is kept, with the rotation it needed.
func (e *Engine) ocrPage(ctx context.Context, dir string, g *image.Gray, page int) ([]Line, int, error) {
	g = resize(g)
	plain := crop(g, inkBounds(g))
	best, err := e.tesseract(ctx, dir, plain)
	if err != nil {
		return nil, 0, err
	}
	bestScore, poor := ocrQuality(best)
	bestRot := 0
	try := func(img *image.Gray, rot int) error {
		words, err := e.tesseract(ctx, dir, rotateGray(img, rot))
		if err != nil {
			return err
		}
		score, p := ocrQuality(words)
		if (poor && !p) || (poor == p && score > bestScore) {
			best, bestScore, bestRot, poor = words, score, rot, p
		}
		return nil
	}
	rot := 0
	if poor {
		if rot, err = e.orientation(ctx, dir, plain); err != nil {
			return nil, 0, err
		}
		if rot != 0 {
			if err := try(plain, rot); err != nil {
				return nil, 0, err
			}
		}
	}
	if poor {
		enhanced := enhance(g)
		if rot == 0 {
			if rot, err = e.orientation(ctx, dir, enhanced); err != nil {
				return nil, 0, err
			}
		}
		if err := try(enhanced, rot); err != nil {
			return nil, 0, err
		}
	}
	return ocrLines(page, best), bestRot, nil
}

func (e *Engine) writePNG(dir string, g *image.Gray) (string, error) {
	f, err := os.CreateTemp(dir, "ocr-*.png")
	if err != nil {
		return "", stageErr(StageText, ErrTool, "cannot write a temporary file", err)
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(f, g); err != nil {
		f.Close()
		return "", stageErr(StageText, ErrTool, "cannot write a temporary file", err)
	}
	if err := f.Close(); err != nil {
		return "", stageErr(StageText, ErrTool, "cannot write a temporary file", err)
	}
	return f.Name(), nil
}

// tesseract runs one recognition (automatic page segmentation, LSTM engine) and returns its words.
func (e *Engine) tesseract(ctx context.Context, dir string, g *image.Gray) ([]ocrWord, error) {
	path, err := e.writePNG(dir, g)
	if err != nil {
		return nil, err
	}
	defer os.Remove(path)
	res, err := e.run(ctx, StageText, e.cfg.Tesseract, []string{path, "stdout", "-l", e.cfg.Language, "--psm", "3", "tsv"}, nil)
	if err != nil {
		return nil, err
	}
	if res.code != 0 {
		return nil, toolError(StageText, ErrTool, "OCR failed", "tesseract", res)
	}
	return parseTSV(res.stdout), nil
}

// orientation runs tesseract's orientation and script detection and returns the clockwise
// rotation that makes the page upright, or 0 when it is unsure or finds too little text.
func (e *Engine) orientation(ctx context.Context, dir string, g *image.Gray) (int, error) {
	// Orientation needs no fine detail; a smaller page makes detection several times faster.
	if long := max(g.Rect.Dx(), g.Rect.Dy()); long > osdSize {
		g = scaleGray(g, float64(osdSize)/float64(long))
	}
	path, err := e.writePNG(dir, g)
	if err != nil {
		return 0, err
	}
	defer os.Remove(path)
	res, err := e.run(ctx, StageText, e.cfg.Tesseract, []string{path, "stdout", "--psm", "0"}, nil)
	if err != nil || res.code != 0 {
		return 0, err
	}
	return parseOSD(res.stdout), nil
}

// osdSize is the longest side, in pixels, of the page given to orientation detection.
const osdSize = 1600

// minOrientationConfidence is the OSD confidence below which a proposed rotation is ignored.
const minOrientationConfidence = 1.0

// parseOSD reads "Rotate: N" and "Orientation confidence: C" from tesseract's psm 0 output.
func parseOSD(b []byte) int {
	rot, conf := 0, 0.0
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "Rotate":
			rot, _ = strconv.Atoi(v)
		case "Orientation confidence":
			conf, _ = strconv.ParseFloat(v, 64)
		}
	}
	if conf < minOrientationConfidence {
		return 0
	}
	switch rot {
	case 90, 180, 270:
		return rot
	}
	return 0
}
