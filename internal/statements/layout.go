package statements

import (
	"strings"
	"time"
	"unicode"

	"github.com/svcplatform/svc/internal/documents"
)

// maxRows bounds how many transactions one statement may hold.
const maxRows = 20000

// column is a table column located on the page: the extent of its header words.
type column struct {
	kind   ColumnKind
	x0, x1 int
}

// table is the header of a transaction table as found on a page.
type table struct {
	cols  []column
	charW float64 // mean width of one character in the line's units
}

func (tb *table) col(k ColumnKind) *column {
	for i := range tb.cols {
		if tb.cols[i].kind == k {
			return &tb.cols[i]
		}
	}
	return nil
}

// token is one or more words read as a unit (an amount written "1 234,56" is two words).
type token struct {
	text   string
	x0, x1 int
	gap    bool
	conf   float64
}

// ParseLines reads one statement from the lines of a PDF's text (text layer or OCR) with
// template t: balances and period from their labels, the transaction table from its
// header (located again on every page), each row from its date, amounts assigned to
// columns by position, and continuation lines (starting under the description column,
// holding no amount) appended to the row's description.
func ParseLines(lines []documents.Line, t *Template) (*Statement, error) {
	st := &Statement{Bank: t.Bank, Template: t.ID, Source: SourcePDF, Currency: t.Currency, Transactions: []Transaction{}}
	lines = mergeOCRFragments(lines, t)
	var tb *table
	var cur *Transaction
	page := 0
	for li, l := range lines {
		if l.Page != page {
			page, cur = l.Page, nil
			st.Pages = max(st.Pages, page)
		}
		if l.Source == documents.SourceOCR {
			st.Source = SourceOCR
		}
		toks := tokens(l, t.Number)
		text := l.Text()
		ft := fold(text)
		if h := findHeader(l, t); h != nil {
			tb, cur = h, nil
			continue
		}
		if a, ok := labelledAmount(ft, toks, t.OpeningLabels, t.Number); ok {
			if st.Opening == nil {
				st.Opening = amt(a)
			}
			cur = nil
			continue
		}
		if a, ok := labelledAmount(ft, toks, t.ClosingLabels, t.Number); ok {
			st.Closing = amt(a)
			cur = nil
			continue
		}
		if st.PeriodStart == nil && t.PeriodLabel != "" && strings.Contains(ft, fold(t.PeriodLabel)) {
			if ds := datesIn(toks, t); len(ds) >= 2 {
				st.PeriodStart, st.PeriodEnd = &ds[0], &ds[len(ds)-1]
			}
			continue
		}
		if st.Account == "" && t.AccountLabel != "" && strings.HasPrefix(ft, fold(t.AccountLabel)) {
			st.Account = accountAfter(text, t.AccountLabel)
			continue
		}
		if tb == nil {
			continue
		}
		if tx, ok := parseRow(toks, tb, t, l.Source == documents.SourceOCR); ok {
			if len(st.Transactions) >= maxRows {
				return nil, stageErr(StageParse, ErrTooLarge, "the statement has too many transactions", nil)
			}
			tx.Index, tx.Page, tx.Line, tx.Currency = len(st.Transactions), l.Page, li+1, t.Currency
			st.Transactions = append(st.Transactions, tx)
			cur = &st.Transactions[len(st.Transactions)-1]
			continue
		}
		if cur != nil && continuation(toks, tb, t) {
			cur.Description = strings.TrimSpace(cur.Description + " " + joinTokens(toks))
			continue
		}
		cur = nil
	}
	inferAmounts(st)
	if len(st.Transactions) == 0 && st.Opening == nil && st.Closing == nil {
		return nil, stageErr(StageParse, ErrNotStatement, "no transactions or balances were found in the "+t.Bank+" layout", nil)
	}
	return st, nil
}

// tokens turns a line's words into tokens, joining the groups of an amount written with
// a space as thousands separator ("1 234,56") when the words are not a column apart.
func tokens(l documents.Line, nf NumberFormat) []token {
	space := strings.ContainsAny(nf.Thousands, " \u00a0\u202f")
	out := make([]token, 0, len(l.Words))
	for _, w := range l.Words {
		tk := token{text: w.Text, x0: w.X0, x1: w.X1, gap: w.Gap, conf: w.Conf}
		if n := len(out); l.Source == documents.SourceOCR && n > 0 && !w.Gap && len(w.Text) == 3 &&
			w.Text[0] == nf.Decimal && isDigits(w.Text[1:]) && looksNumeric(out[n-1].text) {
			// OCR split "2.892,37" into "2.892" and ",37".
			prev := &out[n-1]
			prev.text += w.Text
			prev.x1, prev.conf = w.X1, min(prev.conf, w.Conf)
			continue
		}
		if n := len(out); space && n > 0 && !w.Gap && isDigits(w.Text[:min(3, len(w.Text))]) && len(w.Text) >= 3 &&
			isGroupPrefix(out[n-1].text) {
			prev := &out[n-1]
			prev.text += " " + w.Text
			prev.x1 = w.X1
			prev.conf = min(prev.conf, w.Conf)
			continue
		}
		out = append(out, tk)
	}
	return out
}

// isGroupPrefix reports whether s can begin a space-grouped amount: an optional sign and
// one to three digits, or an already joined group ("1 234").
func isGroupPrefix(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	parts := strings.Split(s, " ")
	if len(parts[0]) == 0 || len(parts[0]) > 3 || !isDigits(parts[0]) {
		return false
	}
	for _, p := range parts[1:] {
		if len(p) != 3 || !isDigits(p) {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func joinTokens(toks []token) string {
	parts := make([]string, len(toks))
	for i, tk := range toks {
		parts[i] = tk.text
	}
	return strings.Join(parts, " ")
}

// findHeader returns the table when the line is the template's table header: every
// column header in printed order.
func findHeader(l documents.Line, t *Template) *table {
	words := l.Words
	tb := &table{}
	i, chars, width := 0, 0, 0
	for _, c := range t.Columns {
		want := strings.Fields(fold(c.Header))
		found := false
		for ; i+len(want) <= len(words); i++ {
			ok := true
			for k, w := range want {
				if strings.Trim(fold(words[i+k].Text), ".:") != w {
					ok = false
					break
				}
			}
			if ok {
				first, last := words[i], words[i+len(want)-1]
				tb.cols = append(tb.cols, column{kind: c.Kind, x0: first.X0, x1: last.X1})
				for _, w := range words[i : i+len(want)] {
					chars += len([]rune(w.Text))
					width += w.X1 - w.X0
				}
				i += len(want)
				found = true
				break
			}
		}
		if !found {
			return nil
		}
	}
	if chars == 0 || len(words) > len(t.Columns)*3 {
		return nil
	}
	tb.charW = float64(width) / float64(chars)
	return tb
}

// labelledAmount reads the last amount of a line that holds one of labels.
func labelledAmount(ft string, toks []token, labels []string, nf NumberFormat) (Amount, bool) {
	for _, lab := range labels {
		if !strings.Contains(ft, fold(lab)) {
			continue
		}
		for i := len(toks) - 1; i >= 0; i-- {
			if a, err := ParseAmount(ocrAmount(toks[i].text, nf), nf); err == nil {
				return a, true
			}
		}
	}
	return 0, false
}

// datesIn returns the dates of the template's layout found in a line, in order.
func datesIn(toks []token, t *Template) []Date {
	n := t.dateWords()
	var out []Date
	for i := 0; i+n <= len(toks); i++ {
		if d, ok := parseDate(toks[i:i+n], t.DateLayout); ok {
			out = append(out, d)
			i += n - 1
		}
	}
	return out
}

// accountAfter returns what follows the account label (and a colon) on the line.
func accountAfter(text, label string) string {
	rest := text
	if i := strings.Index(fold(text), fold(label)); i >= 0 && i+len(label) <= len(text) {
		rest = text[i+len(label):]
	}
	rest = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(rest), ":"))
	return rest
}

// parseDate reads a date spanning toks, tolerating the digit confusions of OCR.
func parseDate(toks []token, layout string) (Date, bool) {
	parts := make([]string, len(toks))
	for i, tk := range toks {
		parts[i] = tk.text
	}
	s := strings.Join(parts, " ")
	if d, err := time.Parse(layout, s); err == nil {
		return d, true
	}
	for i := range parts {
		if digitRatio(parts[i]) >= 0.5 {
			parts[i] = ocrDigits(parts[i])
		}
	}
	d, err := time.Parse(layout, strings.Join(parts, " "))
	return d, err == nil
}

func digitRatio(s string) float64 {
	d, n := 0, 0
	for _, r := range s {
		n++
		if unicode.IsDigit(r) {
			d++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(d) / float64(n)
}

// ocrDigits replaces the letters OCR confuses with digits in a mostly numeric word.
var ocrDigitFixer = strings.NewReplacer("O", "0", "o", "0", "Q", "0", "D", "0", "@", "0", "l", "1", "I", "1", "|", "1", "S", "5", "B", "8", "—", "-", "–", "-")

func ocrDigits(s string) string {
	if digitRatio(s) < 0.5 {
		return s
	}
	return ocrDigitFixer.Replace(s)
}

// parseRow reads a transaction row: the date at the start, amounts right-aligned under
// their column headers, the words of the description column the description. ok is false
// for lines that are not rows (no date, or no amount). On OCR'd lines, a number under an
// amount column that cannot be read is not description: the row is marked AmountUnread
// (or its balance left out) for inferAmounts.
func parseRow(toks []token, tb *table, t *Template, ocr bool) (Transaction, bool) {
	n := t.dateWords()
	if len(toks) <= n {
		return Transaction{}, false
	}
	d, ok := parseDate(toks[:n], t.DateLayout)
	if !ok {
		return Transaction{}, false
	}
	dc := tb.col(ColDate)
	if dc != nil && toks[0].x0 > dc.x1+int(4*tb.charW) {
		return Transaction{}, false
	}
	rest := toks[n:]
	if t.has(ColValueDate) && len(rest) >= n {
		if _, ok := parseDate(rest[:n], t.DateLayout); ok {
			rest = rest[n:]
		}
	}
	tx := Transaction{Date: d, Confidence: 1}
	var desc []string
	seen := map[ColumnKind]bool{}
	lo, hi := descRegion(tb)
	for _, tk := range rest {
		text := tk.text
		if ocr {
			text = ocrAmount(text, t.Number)
		}
		if c := amountColumn(tk, tb, t); c != nil && !seen[c.kind] {
			if a, err := ParseAmount(text, t.Number); err == nil {
				seen[c.kind] = true
				switch c.kind {
				case ColDebit:
					tx.Amount = -a.Abs()
				case ColCredit:
					tx.Amount = a.Abs()
				case ColAmount:
					tx.Amount = a
				case ColBalance:
					tx.Balance = amt(a)
				}
				tx.Confidence = min(tx.Confidence, tk.conf)
				continue
			}
		}
		if tk.x0 >= lo && tk.x0 < hi {
			desc = append(desc, tk.text)
			tx.Confidence = min(tx.Confidence, max(tk.conf, 0.5))
			continue
		}
		// Outside the description column and not an amount: a garbled number.
		tx.Confidence = 0
	}
	if !seen[ColDebit] && !seen[ColCredit] && !seen[ColAmount] {
		// OCR may have garbled or dropped the amount of a row whose balance it read: the
		// balances may tell it (inferAmounts).
		if !ocr || tx.Balance == nil {
			return Transaction{}, false
		}
		tx.AmountUnread = true
	}
	tx.Description = strings.Join(desc, " ")
	return tx, true
}

// descRegion is the horizontal extent of the description column: from its header (less
// two characters) to the next column's header, less the four characters a right-aligned
// amount may stick out to the left of its header.
func descRegion(tb *table) (lo, hi int) {
	dc := tb.col(ColDescription)
	if dc == nil {
		return 0, 0
	}
	lo, hi = dc.x0-int(2*tb.charW), int(^uint(0)>>1)
	for _, c := range tb.cols {
		if c.x0 > dc.x0 && c.x0-int(4*tb.charW) < hi {
			hi = c.x0 - int(4*tb.charW)
		}
	}
	return lo, hi
}

// amountColumn returns the amount or balance column whose header's right edge is nearest
// to the token's right edge (amounts are right-aligned), or nil when the token is not a
// number or no column is near.
func amountColumn(tk token, tb *table, t *Template) *column {
	if !looksNumeric(ocrAmount(tk.text, t.Number)) {
		return nil
	}
	return nearestAmountColumn(tk, tb)
}

func nearestAmountColumn(tk token, tb *table) *column {
	var best *column
	bestD := int(6*tb.charW) + 1
	for i := range tb.cols {
		c := &tb.cols[i]
		switch c.kind {
		case ColDebit, ColCredit, ColAmount, ColBalance:
		default:
			continue
		}
		if d := abs(tk.x1 - c.x1); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// continuation reports whether a line continues the previous row's description: it
// starts under the description column and holds no amount.
func continuation(toks []token, tb *table, t *Template) bool {
	dc := tb.col(ColDescription)
	if dc == nil || len(toks) == 0 {
		return false
	}
	tol := int(2*tb.charW) + 1
	if abs(toks[0].x0-dc.x0) > tol {
		return false
	}
	for _, tk := range toks {
		if amountColumn(tk, tb, t) != nil {
			if _, err := ParseAmount(ocrAmount(tk.text, t.Number), t.Number); err == nil {
				return false
			}
		}
	}
	return true
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
