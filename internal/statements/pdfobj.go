package statements

import (
	"bytes"
	"compress/zlib"
	"io"
	"regexp"
	"strconv"
	"sync"
)

// pdfFile is a minimal, read-only view of a PDF's objects for the tamper checks: object
// bodies by number (the last definition wins, as incremental updates intend) and stream
// data. It reads classic (uncompressed) object definitions only; objects packed in object
// streams are not seen, and the checks that need them report nothing.
type pdfFile struct {
	data    []byte
	objs    map[int][]byte
	streams map[int][]byte
}

var objRe = regexp.MustCompile(`(?s)(\d+)\s+(\d+)\s+obj\b`)

// maxPDFObjects bounds the parse of a hostile file.
const maxPDFObjects = 200000

func parsePDF(data []byte) *pdfFile {
	f := &pdfFile{data: data, objs: map[int][]byte{}, streams: map[int][]byte{}}
	locs := objRe.FindAllSubmatchIndex(data, maxPDFObjects)
	for i, loc := range locs {
		num, err := strconv.Atoi(string(data[loc[2]:loc[3]]))
		if err != nil {
			continue
		}
		end := len(data)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := data[loc[1]:end]
		if j := bytes.Index(body, []byte("endobj")); j >= 0 {
			body = body[:j]
		}
		if s := bytes.Index(body, []byte("stream")); s >= 0 && !bytes.HasPrefix(body[s:], []byte("streamx")) {
			dict := body[:s]
			raw := body[s+len("stream"):]
			raw = bytes.TrimPrefix(raw, []byte("\r"))
			raw = bytes.TrimPrefix(raw, []byte("\n"))
			if e := bytes.LastIndex(raw, []byte("endstream")); e >= 0 {
				raw = raw[:e]
			}
			if n, ok := directInt(dict, "/Length"); ok && n >= 0 && n <= len(raw) {
				raw = raw[:n]
			}
			f.objs[num] = dict
			f.streams[num] = raw
			continue
		}
		f.objs[num] = body
		delete(f.streams, num)
	}
	return f
}

// streamData returns an object's stream, inflated when it is FlateDecode (capped).
func (f *pdfFile) streamData(num int) []byte {
	raw, ok := f.streams[num]
	if !ok {
		return nil
	}
	if !bytes.Contains(f.objs[num], []byte("/FlateDecode")) {
		return raw
	}
	r, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	defer r.Close()
	out, _ := io.ReadAll(io.LimitReader(r, 32<<20))
	return out
}

// directInt reads "/Key 123" (not a reference) from a dictionary.
func directInt(dict []byte, key string) (int, bool) {
	m := keyRe(key, `\s+(\d+)(\s+\d+\s+R)?`).FindSubmatch(dict)
	if m == nil || len(m[2]) > 0 {
		return 0, false
	}
	n, err := strconv.Atoi(string(m[1]))
	return n, err == nil
}

// ref reads "/Key N G R" from a dictionary.
func ref(dict []byte, key string) (int, bool) {
	m := keyRe(key, `\s+(\d+)\s+\d+\s+R`).FindSubmatch(dict)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(string(m[1]))
	return n, err == nil
}

var keyRes sync.Map

// keyRe compiles (once) the pattern of a dictionary key followed by suffix.
func keyRe(key, suffix string) *regexp.Regexp {
	k := key + suffix
	if re, ok := keyRes.Load(k); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(regexp.QuoteMeta(key) + `\b` + suffix)
	keyRes.Store(k, re)
	return re
}

var refRe = regexp.MustCompile(`(\d+)\s+\d+\s+R`)

// refs returns the references of "/Key [a 0 R b 0 R]" or "/Key a 0 R".
func refs(dict []byte, key string) []int {
	i := bytes.Index(dict, []byte(key))
	if i < 0 {
		return nil
	}
	rest := bytes.TrimLeft(dict[i+len(key):], " \r\n\t")
	if bytes.HasPrefix(rest, []byte("[")) {
		if j := bytes.IndexByte(rest, ']'); j >= 0 {
			rest = rest[:j]
		}
		var out []int
		for _, m := range refRe.FindAllSubmatch(rest, -1) {
			if n, err := strconv.Atoi(string(m[1])); err == nil {
				out = append(out, n)
			}
		}
		return out
	}
	if m := refRe.FindSubmatch(rest); m != nil && bytes.Index(rest, m[0]) == 0 {
		n, _ := strconv.Atoi(string(m[1]))
		return []int{n}
	}
	return nil
}

// trailerDict returns the last trailer dictionary (classic cross-reference tables).
func (f *pdfFile) trailerDict() []byte {
	i := bytes.LastIndex(f.data, []byte("trailer"))
	if i < 0 {
		return nil
	}
	t := f.data[i:]
	if j := bytes.Index(t, []byte("startxref")); j >= 0 {
		t = t[:j]
	}
	return t
}

// pages returns the page objects in order, following /Root /Pages /Kids (depth-bounded).
func (f *pdfFile) pages() []int {
	root, ok := ref(f.trailerDict(), "/Root")
	if !ok {
		return nil
	}
	pagesRef, ok := ref(f.objs[root], "/Pages")
	if !ok {
		return nil
	}
	var out []int
	seen := map[int]bool{}
	var walk func(n, depth int)
	walk = func(n, depth int) {
		if depth > 32 || seen[n] || len(out) > 10000 {
			return
		}
		seen[n] = true
		d := f.objs[n]
		if bytes.Contains(d, []byte("/Kids")) {
			for _, k := range refs(d, "/Kids") {
				walk(k, depth+1)
			}
			return
		}
		out = append(out, n)
	}
	walk(pagesRef, 0)
	return out
}

// pdfString decodes the literal or hex string starting at s[0] ('(' or '<').
func pdfString(s []byte) string {
	if len(s) == 0 {
		return ""
	}
	var raw []byte
	switch s[0] {
	case '(':
		depth := 0
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '\\' && i+1 < len(s):
				i++
				switch e := s[i]; e {
				case 'n':
					raw = append(raw, '\n')
				case 'r':
					raw = append(raw, '\r')
				case 't':
					raw = append(raw, '\t')
				case 'b', 'f':
				case '0', '1', '2', '3', '4', '5', '6', '7':
					v, k := 0, 0
					for ; k < 3 && i+k < len(s) && s[i+k] >= '0' && s[i+k] <= '7'; k++ {
						v = v*8 + int(s[i+k]-'0')
					}
					i += k - 1
					raw = append(raw, byte(v))
				case '\n', '\r':
				default:
					raw = append(raw, e)
				}
			case c == '(':
				if depth > 0 {
					raw = append(raw, c)
				}
				depth++
			case c == ')':
				depth--
				if depth == 0 {
					return decodeText(raw)
				}
				raw = append(raw, c)
			default:
				raw = append(raw, c)
			}
		}
	case '<':
		end := bytes.IndexByte(s, '>')
		if end < 0 {
			return ""
		}
		hex := bytes.Map(func(r rune) rune {
			if (r >= '0' && r <= '9') || (r >= 'a' && r <= 'f') || (r >= 'A' && r <= 'F') {
				return r
			}
			return -1
		}, s[1:end])
		if len(hex)%2 == 1 {
			hex = append(hex, '0')
		}
		for i := 0; i+1 < len(hex); i += 2 {
			v, _ := strconv.ParseUint(string(hex[i:i+2]), 16, 8)
			raw = append(raw, byte(v))
		}
	}
	return decodeText(raw)
}

// decodeText reads a PDF text string: UTF-16BE with a byte order mark, else Latin-1.
func decodeText(b []byte) string {
	if len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF {
		var r []rune
		for i := 2; i+1 < len(b); i += 2 {
			r = append(r, rune(b[i])<<8|rune(b[i+1]))
		}
		return string(r)
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}
