package screening

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// ErrMalformed is wrapped by every *ParseError: the input is not a valid list in its format.
var ErrMalformed = errors.New("malformed list")

// MaxFieldBytes bounds one field of a list file; a longer one is malformed input.
const MaxFieldBytes = 64 << 10

// ParseError says where a list file is malformed.
type ParseError struct {
	Format string // ofac-sdn, ofac-alt, ofac-add, un-xml, opensanctions-csv, org-csv
	Line   int    // 1-based; 0 when unknown
	Msg    string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: line %d: %s", e.Format, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Format, e.Msg)
}

// Unwrap makes errors.Is(err, ErrMalformed) true.
func (e *ParseError) Unwrap() error { return ErrMalformed }

func perr(format string, line int, f string, args ...any) error {
	return &ParseError{Format: format, Line: line, Msg: fmt.Sprintf(f, args...)}
}

// csvRows streams the records of a CSV file, checking field counts, UTF-8 and field size;
// a quote left open at the end of the file (a truncated download) is an error.
type csvRows struct {
	format string
	r      *csv.Reader
	want   int // fields per record; 0 means any
}

func newCSVRows(format string, rd io.Reader, want int) *csvRows {
	r := csv.NewReader(rd)
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	return &csvRows{format: format, r: r, want: want}
}

// next returns the next record and its line, or io.EOF.
func (c *csvRows) next() ([]string, int, error) {
	for {
		rec, err := c.r.Read()
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, pe.StartLine, perr(c.format, pe.StartLine, "%v (truncated or badly quoted file?)", pe.Err)
			}
			return nil, 0, perr(c.format, 0, "read: %v", err)
		}
		line, _ := c.r.FieldPos(0)
		// OFAC's files end with a DOS end-of-file byte on a line of its own.
		if len(rec) == 1 && strings.Trim(rec[0], "\x1a \t\r") == "" {
			continue
		}
		if c.want > 0 && len(rec) != c.want {
			return nil, line, perr(c.format, line, "want %d fields, got %d (truncated file?)", c.want, len(rec))
		}
		for i, f := range rec {
			if len(f) > MaxFieldBytes {
				return nil, line, perr(c.format, line, "field %d longer than %d bytes", i+1, MaxFieldBytes)
			}
			if !utf8.ValidString(f) {
				return nil, line, perr(c.format, line, "field %d is not UTF-8", i+1)
			}
		}
		return rec, line, nil
	}
}

// splitMulti splits a multi-valued field ("a; b;c") and drops empty parts.
func splitMulti(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ";") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// addCountry appends a country (code or name) as a code once; unknown names are kept out.
func addCountry(cs []string, s string) []string {
	c, ok := CountryCode(s)
	if !ok {
		return cs
	}
	for _, x := range cs {
		if x == c {
			return cs
		}
	}
	return append(cs, c)
}

func addDate(ds []Date, d Date) []Date {
	for _, x := range ds {
		if x == d {
			return ds
		}
	}
	return append(ds, d)
}

func addString(ss []string, s string) []string {
	for _, x := range ss {
		if x == s {
			return ss
		}
	}
	return append(ss, s)
}
