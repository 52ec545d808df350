package statements

import (
	"bytes"
	"regexp"
)

// shownText is a string a page's content stream shows, with the font it is shown in.
type shownText struct {
	Page int
	Font string
	Text string
}

var (
	fontEntryRe = regexp.MustCompile(`/([A-Za-z0-9_.+-]+)\s+(\d+)\s+\d+\s+R`)
	baseFontRe  = regexp.MustCompile(`/BaseFont\s*/([A-Za-z0-9_.+,-]+)`)
	contentOpRe = regexp.MustCompile(`(?s)/([A-Za-z0-9_.+-]+)\s+[\d.]+\s+Tf|(\((?:\\.|[^\\)])*\))\s*(?:Tj|'|")|\[((?:\\.|[^\]])*)\]\s*TJ`)
	tjStringRe  = regexp.MustCompile(`\((?:\\.|[^\\)])*\)`)
)

// maxContentBytes bounds how much of a page's content is scanned.
const maxContentBytes = 8 << 20

// pageTexts lists the strings shown on each page with their font's base name. It reads
// classic object definitions (see pdfFile); fonts and text of object streams are missed.
func pageTexts(f *pdfFile) []shownText {
	var out []shownText
	for i, p := range f.pages() {
		fonts := f.pageFonts(p)
		var content []byte
		for _, c := range refs(f.objs[p], "/Contents") {
			content = append(content, f.streamData(c)...)
			content = append(content, '\n')
			if len(content) > maxContentBytes {
				break
			}
		}
		font := ""
		for _, m := range contentOpRe.FindAllSubmatch(content, -1) {
			switch {
			case len(m[1]) > 0:
				font = fonts[string(m[1])]
				if font == "" {
					font = string(m[1])
				}
			case len(m[2]) > 0:
				out = append(out, shownText{Page: i + 1, Font: font, Text: pdfString(m[2])})
			case len(m[3]) > 0:
				var s string
				for _, part := range tjStringRe.FindAll(m[3], -1) {
					s += pdfString(part)
				}
				out = append(out, shownText{Page: i + 1, Font: font, Text: s})
			}
		}
	}
	return out
}

// pageFonts maps a page's font resource names to base font names.
func (f *pdfFile) pageFonts(page int) map[string]string {
	res := f.objs[page]
	if n, ok := ref(res, "/Resources"); ok {
		res = f.objs[n]
	}
	fontDict := res
	if n, ok := ref(res, "/Font"); ok {
		fontDict = f.objs[n]
	} else if i := bytes.Index(res, []byte("/Font")); i >= 0 {
		fontDict = res[i+len("/Font"):]
		if j := bytes.Index(fontDict, []byte(">>")); j >= 0 {
			fontDict = fontDict[:j]
		}
	}
	out := map[string]string{}
	for _, m := range fontEntryRe.FindAllSubmatch(fontDict, -1) {
		n := 0
		for _, c := range m[2] {
			n = n*10 + int(c-'0')
			if n > 1e9 {
				break
			}
		}
		if b := baseFontRe.FindSubmatch(f.objs[n]); b != nil {
			out[string(m[1])] = string(b[1])
		}
	}
	return out
}
