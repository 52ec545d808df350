package statements

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// maxOFXBytes bounds an OFX file.
const maxOFXBytes = 32 << 20

// ParseOFX reads an OFX or QFX file, version 1 (SGML, unclosed leaf tags) or 2 (XML): one
// statement per bank or card statement response, with the ledger balance as closing
// balance (OFX has no opening balance; it is derived as closing − credits + debits).
func ParseOFX(data []byte) ([]*Statement, error) {
	if len(data) > maxOFXBytes {
		return nil, stageErr(StageParse, ErrTooLarge, "the OFX file is too large", nil)
	}
	body, err := ofxBody(data)
	if err != nil {
		return nil, err
	}
	var out []*Statement
	for _, rs := range ofxBlocks(body, "STMTRS", "CCSTMTRS") {
		st := &Statement{Source: SourceOFX, Currency: ofxLeaf(rs, "CURDEF"), Account: ofxLeaf(rs, "ACCTID"), Transactions: []Transaction{}}
		for i, tr := range ofxBlocks(rs, "STMTTRN") {
			d, err := ofxDate(ofxLeaf(tr, "DTPOSTED"))
			if err != nil {
				return nil, stageErr(StageParse, ErrMalformed, fmt.Sprintf("transaction %d: the date %q does not parse", i+1, clip(ofxLeaf(tr, "DTPOSTED"))), nil)
			}
			a, err := parseLoose(ofxLeaf(tr, "TRNAMT"), FormatPlain)
			if err != nil {
				if a, err = parseLoose(ofxLeaf(tr, "TRNAMT"), NumberFormat{Decimal: ','}); err != nil {
					return nil, stageErr(StageParse, ErrMalformed, fmt.Sprintf("transaction %d: the amount %q does not parse", i+1, clip(ofxLeaf(tr, "TRNAMT"))), nil)
				}
			}
			desc := ofxLeaf(tr, "NAME")
			if memo := ofxLeaf(tr, "MEMO"); memo != "" && memo != desc {
				desc = strings.TrimSpace(desc + " " + memo)
			}
			st.Transactions = append(st.Transactions, Transaction{Date: d, Description: desc, Amount: a,
				Reference: ofxLeaf(tr, "FITID"), Currency: st.Currency, Confidence: 1})
		}
		if s, err := ofxDate(ofxLeaf(rs, "DTSTART")); err == nil {
			st.PeriodStart = &s
		}
		if e, err := ofxDate(ofxLeaf(rs, "DTEND")); err == nil {
			st.PeriodEnd = &e
		}
		if lb := ofxBlocks(rs, "LEDGERBAL"); len(lb) > 0 {
			if a, err := parseLoose(ofxLeaf(lb[0], "BALAMT"), FormatPlain); err == nil {
				st.Closing = amt(a)
				st.Opening = amt(a - st.Credits() + st.Debits())
			}
		}
		finishFileStatement(st)
		out = append(out, st)
	}
	if len(out) == 0 {
		return nil, stageErr(StageParse, ErrNotStatement, "the OFX file holds no bank or card statement", nil)
	}
	return out, nil
}

// ofxBody checks the header (the SGML KEY:VALUE lines of version 1 or the <?OFX ?>
// instruction of version 2) and returns the part from <OFX> on.
func ofxBody(data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	up := bytes.ToUpper(data)
	start := bytes.Index(up, []byte("<OFX>"))
	if start < 0 {
		return nil, stageErr(StageParse, ErrMalformed, "the OFX file has no <OFX> element", nil)
	}
	head := strings.TrimSpace(string(data[:start]))
	switch {
	case strings.HasPrefix(strings.ToUpper(head), "OFXHEADER:"):
		keys := map[string]string{}
		for _, l := range strings.Split(head, "\n") {
			l = strings.TrimSpace(l)
			if l == "" {
				continue
			}
			k, v, ok := strings.Cut(l, ":")
			if !ok || k == "" {
				return nil, stageErr(StageParse, ErrMalformed, "the OFX header is broken (a line is not KEY:VALUE)", nil)
			}
			keys[strings.ToUpper(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
		if keys["OFXHEADER"] != "100" || keys["DATA"] != "OFXSGML" {
			return nil, stageErr(StageParse, ErrMalformed, "the OFX header is broken (OFXHEADER:100 and DATA:OFXSGML are required)", nil)
		}
	case strings.Contains(strings.ToUpper(head), "<?OFX"):
		if !strings.Contains(strings.ToUpper(head), "OFXHEADER=\"200\"") {
			return nil, stageErr(StageParse, ErrMalformed, "the OFX header is broken (OFXHEADER=\"200\" is required)", nil)
		}
	case strings.TrimPrefix(head, "<?xml") != head || head == "":
		// A bare <OFX> document (some exports drop the header): accepted.
	default:
		return nil, stageErr(StageParse, ErrMalformed, "the OFX header is broken", nil)
	}
	return data[start:], nil
}

// ofxBlocks returns the contents of every <TAG>…</TAG> aggregate of any of tags.
func ofxBlocks(b []byte, tags ...string) [][]byte {
	var out [][]byte
	up := bytes.ToUpper(b)
	for _, tag := range tags {
		open, closeTag := []byte("<"+tag+">"), []byte("</"+tag+">")
		for off := 0; off < len(up) && len(out) <= maxRows; {
			i := bytes.Index(up[off:], open)
			if i < 0 {
				break
			}
			s := off + i + len(open)
			j := bytes.Index(up[s:], closeTag)
			if j < 0 {
				out = append(out, b[s:])
				break
			}
			out = append(out, b[s:s+j])
			off = s + j + len(closeTag)
		}
	}
	return out
}

// ofxLeaf returns the value of the first <TAG>value leaf (closed or not) in b.
func ofxLeaf(b []byte, tag string) string {
	open := []byte("<" + tag + ">")
	i := bytes.Index(bytes.ToUpper(b), open)
	if i < 0 {
		return ""
	}
	v := b[i+len(open):]
	if j := bytes.IndexByte(v, '<'); j >= 0 {
		v = v[:j]
	}
	return strings.TrimSpace(xmlUnescape(string(v)))
}

var xmlUnescaper = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'")

func xmlUnescape(s string) string { return xmlUnescaper.Replace(s) }

// ofxDate reads YYYYMMDD[HHMMSS[.XXX]][[±H:TZ]]; the day is what counts.
func ofxDate(s string) (Date, error) {
	if len(s) < 8 {
		return Date{}, ErrMalformed
	}
	d, err := time.Parse("20060102", s[:8])
	if err != nil {
		return Date{}, err
	}
	return d, nil
}
