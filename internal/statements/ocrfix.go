package statements

import (
	"regexp"
	"slices"
	"strings"

	"github.com/svcplatform/svc/internal/documents"
)

// mergeOCRFragments puts back together the rows OCR split in two lines (tesseract
// sometimes segments the amount columns apart from the description column; the pieces
// of one row never overlap horizontally):
//   - a row whose date is followed by numbers only, and the next line, not a row, that
//     holds its description;
//   - a line with no date, and the next line, a date followed by numbers only, when the
//     line has an amount or the line after that cannot be the row's description;
//   - a row and the next line when that line holds numbers only;
//   - two lines that together make the table header.
func mergeOCRFragments(lines []documents.Line, t *Template) []documents.Line {
	out := make([]documents.Line, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l.Source != documents.SourceOCR || i+1 >= len(lines) || lines[i+1].Page != l.Page || overlaps(l, lines[i+1]) {
			out = append(out, l)
			continue
		}
		next := lines[i+1]
		lRow, nRow := startsWithDate(l, t), startsWithDate(next, t)
		switch {
		case findHeader(l, t) == nil && findHeader(next, t) == nil && findHeader(joinLines(l, next), t) != nil,
			lRow && !nRow && (bareRow(l, t) || numericOnly(next)),
			!lRow && nRow && bareRow(next, t) && (hasAmount(l, t) || !descriptionFollows(lines, i+1, t)):
			out = append(out, joinLines(l, next))
			i++
		default:
			out = append(out, l)
		}
	}
	return out
}

// descriptionFollows reports whether the line after lines[i] can be lines[i]'s description
// (on the same page, not a row, not overlapping it).
func descriptionFollows(lines []documents.Line, i int, t *Template) bool {
	if i+1 >= len(lines) {
		return false
	}
	n := lines[i+1]
	return n.Page == lines[i].Page && !startsWithDate(n, t) && !overlaps(lines[i], n)
}

// joinLines merges two lines' words in x order, marking column gaps afresh.
func joinLines(a, b documents.Line) documents.Line {
	words := append(slices.Clone(a.Words), b.Words...)
	slices.SortStableFunc(words, func(x, y documents.Word) int { return x.X0 - y.X0 })
	for i := 1; i < len(words); i++ {
		prev := words[i-1]
		charW := (prev.X1 - prev.X0) / max(1, len([]rune(prev.Text)))
		words[i].Gap = words[i].X0-prev.X1 > 2*charW
	}
	a.Words = words
	return a
}

// bareRow reports whether a line is a date followed by numbers only (no description).
func bareRow(l documents.Line, t *Template) bool {
	rest := l.Words[min(len(l.Words), t.dateWords()):]
	for _, w := range rest {
		if !looksNumeric(ocrDigits(w.Text)) {
			return false
		}
	}
	return len(rest) > 0
}

func hasAmount(l documents.Line, t *Template) bool {
	for _, w := range l.Words {
		if _, err := ParseAmount(ocrAmount(w.Text, t.Number), t.Number); err == nil {
			return true
		}
	}
	return false
}

func numericOnly(l documents.Line) bool {
	for _, w := range l.Words {
		if !looksNumeric(ocrDigits(w.Text)) {
			return false
		}
	}
	return len(l.Words) > 0
}

func startsWithDate(l documents.Line, t *Template) bool {
	n := t.dateWords()
	if len(l.Words) < n {
		return false
	}
	toks := make([]token, n)
	for i := range n {
		toks[i] = token{text: l.Words[i].Text}
	}
	_, ok := parseDate(toks, t.DateLayout)
	return ok
}

func overlaps(a, b documents.Line) bool {
	for _, x := range a.Words {
		for _, y := range b.Words {
			if x.X0 < y.X1 && y.X0 < x.X1 {
				return true
			}
		}
	}
	return false
}

var (
	colonDecimals = regexp.MustCompile(`[:;](\d\d)\)?-?$`)
	stray         = regexp.MustCompile(`[.,:;']+$`)
)

// ocrAmount repairs what OCR does to printed amounts: letters for digits, "=" or a dash
// for the minus sign, a colon or semicolon for a separator, trailing punctuation.
func ocrAmount(s string, nf NumberFormat) string {
	s = ocrDigits(s)
	if strings.HasPrefix(s, "=") {
		s = "-" + s[1:]
	}
	s = stray.ReplaceAllString(s, "")
	s = colonDecimals.ReplaceAllString(s, string(rune(nf.Decimal))+"$1")
	if th := []rune(nf.Thousands); len(th) > 0 {
		s = strings.NewReplacer(":", string(th[0]), ";", string(th[0])).Replace(s)
	}
	return s
}

// inferAmounts uses the printed running balances of OCR'd statements as a checksum:
//   - a row whose amount could not be read gets the difference of the balances around it;
//   - a row whose amount disagrees with that difference by what OCR does (a lost minus
//     sign, one or two misread digits; not a whole missing row), when the balance before it
//     agrees with its own row and the balance after it with the next row (or the closing
//     balance), gets the difference too;
//   - a row whose balance could not be read gets the balance before it plus its amount,
//     when the next row confirms the result.
//
// Such rows are marked AmountFromBalance or BalanceInferred, with a lowered confidence.
func inferAmounts(st *Statement) {
	if st.Source != SourceOCR {
		return
	}
	txs := st.Transactions
	before := func(i int) *Amount {
		if i > 0 {
			return txs[i-1].Balance
		}
		return st.Opening
	}
	// back reports whether the balance after row j agrees with row j's amount.
	back := func(j int) bool {
		if j < 0 {
			return st.Opening != nil
		}
		p := before(j)
		return p != nil && txs[j].Balance != nil && !txs[j].AmountUnread && *txs[j].Balance-*p == txs[j].Amount
	}
	// fwd reports whether balance b after row i agrees with what follows it.
	fwd := func(i int, b Amount) bool {
		if i+1 < len(txs) {
			n := txs[i+1]
			return n.Balance != nil && !n.AmountUnread && *n.Balance-b == n.Amount
		}
		return st.Closing != nil && *st.Closing == b
	}
	for i := range txs {
		tx := &txs[i]
		prev := before(i)
		if prev == nil {
			continue
		}
		if tx.Balance == nil {
			if !tx.AmountUnread && fwd(i, *prev+tx.Amount) {
				tx.Balance, tx.BalanceInferred = amt(*prev+tx.Amount), true
				tx.Confidence = min(tx.Confidence, 0.5)
			}
			continue
		}
		diff := *tx.Balance - *prev
		switch {
		case tx.AmountUnread:
			tx.Amount = diff
		case tx.Amount != diff && misread(tx.Amount, diff) && back(i-1) && fwd(i, *tx.Balance):
			tx.Amount = diff
		default:
			continue
		}
		tx.AmountUnread, tx.AmountFromBalance = false, true
		tx.Confidence = min(tx.Confidence, 0.5)
	}
}

// misread reports whether read could be an OCR misreading of want: the same digits with
// the sign lost, or the same number of digits with at most two of them different.
func misread(read, want Amount) bool {
	if read == -want {
		return true
	}
	a, b := read.Abs().String(), want.Abs().String()
	if len(a) != len(b) {
		return false
	}
	diff := 0
	for i := range len(a) {
		if a[i] != b[i] {
			diff++
		}
	}
	return diff <= 2
}
