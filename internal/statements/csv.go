package statements

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// csvHeaders maps header names (folded) of common bank exports to column kinds.
var csvHeaders = map[string]ColumnKind{
	"date": ColDate, "booking date": ColDate, "transaction date": ColDate, "posted": ColDate, "posting date": ColDate,
	"buchungstag": ColDate, "datum": ColDate, "date operation": ColDate, "date de l'operation": ColDate,
	"value date": ColValueDate, "valuta": ColValueDate, "wertstellung": ColValueDate, "date valeur": ColValueDate,
	"description": ColDescription, "details": ColDescription, "memo": ColDescription, "narrative": ColDescription,
	"payee": ColDescription, "text": ColDescription, "verwendungszweck": ColDescription, "libelle": ColDescription,
	"buchungstext": ColDescription, "reference": ColDescription,
	"amount": ColAmount, "betrag": ColAmount, "montant": ColAmount, "value": ColAmount,
	"debit": ColDebit, "withdrawal": ColDebit, "withdrawals": ColDebit, "paid out": ColDebit, "money out": ColDebit,
	"soll": ColDebit, "belastung": ColDebit,
	"credit": ColCredit, "deposit": ColCredit, "deposits": ColCredit, "paid in": ColCredit, "money in": ColCredit,
	"haben": ColCredit, "gutschrift": ColCredit,
	"balance": ColBalance, "running balance": ColBalance, "saldo": ColBalance, "solde": ColBalance,
	"currency": "currency", "wahrung": "currency", "devise": "currency", "ccy": "currency",
}

// csvDateLayouts are the date layouts tried on CSV cells; the one that reads the most
// cells wins, so 03/04 is read the way the rest of the file says.
var csvDateLayouts = []string{"2006-01-02", "01/02/2006", "02/01/2006", "02.01.2006", "2006/01/02", "02 Jan 2006",
	"02-Jan-2006", "1/2/2006", "2/1/2006", "01/02/06", "02/01/06", "2006-01-02T15:04:05Z07:00"}

// csvNumberFormats are the number formats tried on CSV amount cells.
var csvNumberFormats = []NumberFormat{FormatUS, FormatEU, FormatCH, FormatFR, {Decimal: ',', Thousands: ""}}

// maxCSVBytes bounds a CSV file.
const maxCSVBytes = 32 << 20

// ParseCSV reads a bank's CSV export: delimiter, header row, date layout and number format
// are detected; rows newest-first are put in date order; a balance column gives the
// opening (first balance before its row) and closing balances. currency is used when the
// file has no currency column.
func ParseCSV(data []byte, currency string) (*Statement, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, stageErr(StageParse, ErrMalformed, "the CSV file is empty", nil)
	}
	if len(data) > maxCSVBytes {
		return nil, stageErr(StageParse, ErrTooLarge, "the CSV file is too large", nil)
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = sniffDelimiter(data)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = false
	var rows [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, stageErr(StageParse, ErrMalformed, "the CSV file cannot be read", err)
		}
		if len(rows) > maxRows+50 {
			return nil, stageErr(StageParse, ErrTooLarge, "the CSV file has too many rows", nil)
		}
		rows = append(rows, rec)
	}
	hi, cols := -1, map[ColumnKind]int{}
	for i := 0; i < len(rows) && i < 20 && hi < 0; i++ {
		c := map[ColumnKind]int{}
		for j, cell := range rows[i] {
			if k, ok := csvHeaders[fold(strings.TrimSpace(cell))]; ok {
				if _, dup := c[k]; !dup {
					c[k] = j
				}
			}
		}
		_, hasDate := c[ColDate]
		_, hasAmt := c[ColAmount]
		_, hasDeb := c[ColDebit]
		_, hasCred := c[ColCredit]
		if hasDate && (hasAmt || hasDeb || hasCred) {
			hi, cols = i, c
		}
	}
	if hi < 0 {
		return nil, stageErr(StageParse, ErrNotStatement, "the CSV file has no header row with a date and an amount column", nil)
	}
	body := rows[hi+1:]
	cell := func(row []string, k ColumnKind) string {
		if j, ok := cols[k]; ok && j < len(row) {
			return strings.TrimSpace(row[j])
		}
		return ""
	}
	layout := bestLayout(body, func(row []string) string { return cell(row, ColDate) })
	nf := bestNumberFormat(body, cols)
	st := &Statement{Source: SourceCSV, Currency: currency, Transactions: []Transaction{}}
	for i, row := range body {
		if len(row) == 1 && strings.TrimSpace(row[0]) == "" {
			continue
		}
		line := hi + i + 2
		ds := cell(row, ColDate)
		d, err := time.Parse(layout, ds)
		if err != nil {
			return nil, stageErr(StageParse, ErrMalformed, fmt.Sprintf("line %d: the date %q does not parse", line, clip(ds)), nil)
		}
		tx := Transaction{Date: d.UTC().Truncate(24 * time.Hour), Description: cell(row, ColDescription), Line: line, Confidence: 1}
		if _, ok := cols[ColAmount]; ok {
			a, err := parseLoose(cell(row, ColAmount), nf)
			if err != nil {
				return nil, amountErr(line, cell(row, ColAmount))
			}
			tx.Amount = a
		} else {
			deb, cred := cell(row, ColDebit), cell(row, ColCredit)
			if deb != "" {
				a, err := parseLoose(deb, nf)
				if err != nil {
					return nil, amountErr(line, deb)
				}
				tx.Amount -= a.Abs()
			}
			if cred != "" {
				a, err := parseLoose(cred, nf)
				if err != nil {
					return nil, amountErr(line, cred)
				}
				tx.Amount += a.Abs()
			}
			if deb == "" && cred == "" {
				return nil, amountErr(line, "")
			}
		}
		if b := cell(row, ColBalance); b != "" {
			a, err := parseLoose(b, nf)
			if err != nil {
				return nil, amountErr(line, b)
			}
			tx.Balance = amt(a)
		}
		tx.Currency = cmpOr(cell(row, "currency"), currency)
		st.Transactions = append(st.Transactions, tx)
	}
	if len(st.Transactions) == 0 {
		return nil, stageErr(StageParse, ErrNotStatement, "the CSV file has a header but no transactions", nil)
	}
	finishFileStatement(st)
	return st, nil
}

// finishFileStatement puts rows in date order (exports are often newest first), numbers
// them, sets the currency and derives the balances from a running balance column.
func finishFileStatement(st *Statement) {
	txs := st.Transactions
	if len(txs) > 1 && txs[0].Date.After(txs[len(txs)-1].Date) {
		slices.Reverse(txs)
	}
	for i := range txs {
		txs[i].Index = i
		if st.Currency == "" {
			st.Currency = txs[i].Currency
		}
	}
	if st.Opening == nil && len(txs) > 0 && txs[0].Balance != nil {
		st.Opening = amt(*txs[0].Balance - txs[0].Amount)
	}
	if st.Closing == nil && len(txs) > 0 && txs[len(txs)-1].Balance != nil {
		st.Closing = amt(*txs[len(txs)-1].Balance)
	}
	if st.PeriodStart == nil && len(txs) > 0 {
		s, e := txs[0].Date, txs[len(txs)-1].Date
		st.PeriodStart, st.PeriodEnd = &s, &e
	}
}

func amountErr(line int, v string) error {
	return stageErr(StageParse, ErrMalformed, fmt.Sprintf("line %d: the amount %q does not parse", line, clip(v)), nil)
}

// clip shortens a value quoted in an error message.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// sniffDelimiter picks the separator that occurs most in the first line with content.
func sniffDelimiter(data []byte) rune {
	first := data
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	best, n := ',', -1
	for _, d := range []rune{',', ';', '\t', '|'} {
		if c := bytes.Count(first, []byte(string(d))); c > n {
			best, n = d, c
		}
	}
	return best
}

func bestLayout(rows [][]string, get func([]string) string) string {
	best, bestN := csvDateLayouts[0], -1
	for _, l := range csvDateLayouts {
		n := 0
		for _, r := range rows {
			if _, err := time.Parse(l, get(r)); err == nil {
				n++
			}
		}
		if n > bestN {
			best, bestN = l, n
		}
	}
	return best
}

func bestNumberFormat(rows [][]string, cols map[ColumnKind]int) NumberFormat {
	best, bestN := csvNumberFormats[0], -1
	for _, nf := range csvNumberFormats {
		n := 0
		for _, r := range rows {
			for _, k := range []ColumnKind{ColAmount, ColDebit, ColCredit, ColBalance} {
				if j, ok := cols[k]; ok && j < len(r) && strings.TrimSpace(r[j]) != "" {
					if _, err := ParseAmount(strings.TrimSpace(r[j]), nf); err == nil {
						n++
					}
				}
			}
		}
		if n > bestN {
			best, bestN = nf, n
		}
	}
	return best
}
