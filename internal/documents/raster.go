package documents

import (
	"bytes"
	"cmp"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"sort"

	"golang.org/x/image/tiff"
)

// codec decodes one image format.
type codec struct {
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}

// codecs are the image decoders, called explicitly (no reliance on image.RegisterFormat).
var codecs = map[Format]codec{
	FormatPNG:  {png.DecodeConfig, png.Decode},
	FormatJPEG: {jpeg.DecodeConfig, jpeg.Decode},
	FormatTIFF: {tiff.DecodeConfig, tiff.Decode},
}

// decodeImage decodes an image after checking its declared size against maxPixels, so a
// small file declaring a huge canvas (a decompression bomb) is refused before allocation.
func decodeImage(f Format, data []byte, maxPixels int) (img image.Image, err error) {
	// A decoder bug must not take the worker down with a hostile file.
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("%s decoder failed: %v", f, r)
		}
	}()
	c, ok := codecs[f]
	if !ok {
		return nil, fmt.Errorf("not an image format: %q", f)
	}
	cfg, err := c.config(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, fmt.Errorf("image has no pixels")
	}
	if cfg.Width > maxPixels/cfg.Height {
		return nil, fmt.Errorf("image of %dx%d pixels is larger than the limit of %d pixels", cfg.Width, cfg.Height, maxPixels)
	}
	return c.decode(bytes.NewReader(data))
}

// toGray converts any image to 8-bit grey (ITU-R 601 luma, as image/color does).
func toGray(img image.Image) *image.Gray {
	b := img.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	switch src := img.(type) {
	case *image.Gray:
		for y := 0; y < b.Dy(); y++ {
			copy(g.Pix[y*g.Stride:y*g.Stride+b.Dx()], src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):])
		}
		return g
	case *image.RGBA:
		for y := 0; y < b.Dy(); y++ {
			o := src.PixOffset(b.Min.X, b.Min.Y+y)
			row := g.Pix[y*g.Stride:]
			for x := 0; x < b.Dx(); x++ {
				p := src.Pix[o+4*x:]
				row[x] = uint8((19595*uint32(p[0]) + 38470*uint32(p[1]) + 7471*uint32(p[2]) + 1<<15) >> 16)
			}
		}
		return g
	}
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			r, gg, bb, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			g.Pix[y*g.Stride+x] = uint8((19595*r + 38470*gg + 7471*bb + 1<<15) >> 24)
		}
	}
	return g
}

// rotateGray turns a grey image clockwise by 90, 180 or 270 degrees.
func rotateGray(src *image.Gray, degrees int) *image.Gray {
	w, h := src.Rect.Dx(), src.Rect.Dy()
	switch ((degrees % 360) + 360) % 360 {
	case 90:
		out := image.NewGray(image.Rect(0, 0, h, w))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				out.Pix[x*out.Stride+(h-1-y)] = src.Pix[y*src.Stride+x]
			}
		}
		return out
	case 180:
		out := image.NewGray(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				out.Pix[(h-1-y)*out.Stride+(w-1-x)] = src.Pix[y*src.Stride+x]
			}
		}
		return out
	case 270:
		out := image.NewGray(image.Rect(0, 0, h, w))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				out.Pix[(w-1-x)*out.Stride+y] = src.Pix[y*src.Stride+x]
			}
		}
		return out
	}
	return src
}

// normalizeBackground flattens uneven lighting, tinted card backgrounds and washed-out
// scans: it estimates the local paper brightness (a high percentile per block, dilated and
// smoothed, interpolated back to full size) and divides every pixel by it, so the paper
// becomes white everywhere and the ink keeps its contrast relative to its surroundings.
func normalizeBackground(g *image.Gray) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	bs := max(8, min(w, h)/48)
	bw, bh := (w+bs-1)/bs, (h+bs-1)/bs
	bg := make([]float64, bw*bh)
	var hist [256]int
	for by := 0; by < bh; by++ {
		for bx := 0; bx < bw; bx++ {
			hist = [256]int{}
			n := 0
			for y := by * bs; y < min(h, (by+1)*bs); y++ {
				row := g.Pix[y*g.Stride:]
				for x := bx * bs; x < min(w, (bx+1)*bs); x++ {
					hist[row[x]]++
					n++
				}
			}
			// 90th percentile: the paper, robust to noise and to the ink in the block.
			target, acc, v := n*9/10, 0, 0
			for v = 0; v < 256; v++ {
				acc += hist[v]
				if acc > target {
					break
				}
			}
			bg[by*bw+bx] = float64(min(v, 255))
		}
	}
	// Dilate (3x3 max) so blocks covered by thick strokes take their neighbours' paper,
	// then smooth (3x3 mean).
	bg = blockFilter(bg, bw, bh, func(vals []float64) float64 {
		m := vals[0]
		for _, v := range vals[1:] {
			m = max(m, v)
		}
		return m
	})
	bg = blockFilter(bg, bw, bh, func(vals []float64) float64 {
		s := 0.0
		for _, v := range vals {
			s += v
		}
		return s / float64(len(vals))
	})
	out := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		fy := (float64(y)+0.5)/float64(bs) - 0.5
		y0 := clamp(int(fy), 0, bh-1)
		y1 := clamp(y0+1, 0, bh-1)
		ty := clamp(fy-float64(y0), 0, 1)
		row := g.Pix[y*g.Stride:]
		orow := out.Pix[y*out.Stride:]
		for x := 0; x < w; x++ {
			fx := (float64(x)+0.5)/float64(bs) - 0.5
			x0 := clamp(int(fx), 0, bw-1)
			x1 := clamp(x0+1, 0, bw-1)
			tx := clamp(fx-float64(x0), 0, 1)
			b := (bg[y0*bw+x0]*(1-tx)+bg[y0*bw+x1]*tx)*(1-ty) + (bg[y1*bw+x0]*(1-tx)+bg[y1*bw+x1]*tx)*ty
			if b < 1 {
				b = 1
			}
			v := float64(row[x]) * 255 / b
			if v > 255 {
				v = 255
			}
			orow[x] = uint8(v)
		}
	}
	return out
}

func blockFilter(src []float64, w, h int, f func([]float64) float64) []float64 {
	out := make([]float64, len(src))
	vals := make([]float64, 0, 9)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			vals = vals[:0]
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if xx, yy := x+dx, y+dy; xx >= 0 && xx < w && yy >= 0 && yy < h {
						vals = append(vals, src[yy*w+xx])
					}
				}
			}
			out[y*w+x] = f(vals)
		}
	}
	return out
}

// stretchContrast maps the darkest ink (the 0.5th percentile) to black, leaving white
// white, so faint scans reach tesseract with full contrast.
func stretchContrast(g *image.Gray) {
	var hist [256]int
	for _, v := range g.Pix {
		hist[v]++
	}
	n := len(g.Pix)
	lo, acc := 0, 0
	for lo = 0; lo < 255; lo++ {
		acc += hist[lo]
		if acc > n/200 {
			break
		}
	}
	if lo >= 200 || lo <= 5 {
		return
	}
	var lut [256]uint8
	for v := 0; v < 256; v++ {
		lut[v] = uint8(clamp((v-lo)*255/(255-lo), 0, 255))
	}
	for i, v := range g.Pix {
		g.Pix[i] = lut[v]
	}
}

// inkBounds returns the bounding box of rows and columns that hold ink (pixels darker than
// 160 after normalisation) with a margin, so tesseract does not scan a blank A4 page.
func inkBounds(g *image.Gray) image.Rectangle {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	rows, cols := make([]int, h), make([]int, w)
	for y := 0; y < h; y++ {
		row := g.Pix[y*g.Stride:]
		for x := 0; x < w; x++ {
			if row[x] < 160 {
				rows[y]++
				cols[x]++
			}
		}
	}
	first := func(c []int, need int, rev bool) int {
		for i := range c {
			j := i
			if rev {
				j = len(c) - 1 - i
			}
			if c[j] >= need {
				return j
			}
		}
		return -1
	}
	needRow, needCol := max(3, w/300), max(3, h/300)
	y0, y1 := first(rows, needRow, false), first(rows, needRow, true)
	x0, x1 := first(cols, needCol, false), first(cols, needCol, true)
	if y0 < 0 || x0 < 0 {
		return g.Rect
	}
	m := 24
	return image.Rect(max(0, x0-m), max(0, y0-m), min(w, x1+m+1), min(h, y1+m+1))
}

func crop(g *image.Gray, r image.Rectangle) *image.Gray {
	out := image.NewGray(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := 0; y < r.Dy(); y++ {
		copy(out.Pix[y*out.Stride:y*out.Stride+r.Dx()], g.Pix[(r.Min.Y+y)*g.Stride+r.Min.X:])
	}
	return out
}

// median returns the median of a slice (0 for none); it sorts a copy.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	c := append([]float64(nil), v...)
	sort.Float64s(c)
	return c[len(c)/2]
}

// clamp limits v to [lo, hi].
func clamp[T cmp.Ordered](v, lo, hi T) T {
	return min(max(v, lo), hi)
}

// median3 is a 3x3 median filter: it removes scanner and sensor noise while keeping the
// edges of strokes.
func median3(g *image.Gray) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	var v [9]uint8
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			k := 0
			for dy := -1; dy <= 1; dy++ {
				yy := clamp(y+dy, 0, h-1)
				row := g.Pix[yy*g.Stride:]
				for dx := -1; dx <= 1; dx++ {
					v[k] = row[clamp(x+dx, 0, w-1)]
					k++
				}
			}
			out.Pix[y*out.Stride+x] = median9(&v)
		}
	}
	return out
}

// median9 returns the median of nine values with a partial sorting network.
func median9(p *[9]uint8) uint8 {
	s := func(a, b int) {
		if p[a] > p[b] {
			p[a], p[b] = p[b], p[a]
		}
	}
	s(1, 2)
	s(4, 5)
	s(7, 8)
	s(0, 1)
	s(3, 4)
	s(6, 7)
	s(1, 2)
	s(4, 5)
	s(7, 8)
	s(0, 3)
	s(5, 8)
	s(4, 7)
	s(3, 6)
	s(1, 4)
	s(2, 5)
	s(4, 7)
	s(4, 2)
	s(6, 4)
	s(4, 2)
	return p[4]
}
