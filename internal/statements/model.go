package statements

import "time"

// Date is a calendar day (no time, no zone), the day a transaction was booked.
type Date = time.Time

// day builds a UTC midnight date.
func day(y int, m time.Month, d int) Date { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// Source says what a statement was parsed from.
type Source string

// The sources.
const (
	SourcePDF  Source = "pdf"
	SourceOCR  Source = "pdf_ocr"
	SourceCSV  Source = "csv"
	SourceOFX  Source = "ofx"
	SourceCAMT Source = "camt053"
)

// Transaction is one booked movement.
type Transaction struct {
	// Index is the row's position in its statement, from 0.
	Index int  `json:"index"`
	Date  Date `json:"date"`
	// Description includes continuation lines, joined with single spaces.
	Description string `json:"description"`
	// Amount is signed: credits positive, debits negative.
	Amount Amount `json:"amount"`
	// Balance is the running balance printed after the row, when the statement prints one.
	Balance   *Amount `json:"balance,omitempty"`
	Currency  string  `json:"currency"`
	Page      int     `json:"page,omitempty"`
	Line      int     `json:"line,omitempty"`
	Reference string  `json:"reference,omitempty"`
	Category  string  `json:"category,omitempty"`
	// AmountUnread is true when OCR could not read the amount; AmountFromBalance when it
	// was then taken from the difference of the printed running balances.
	AmountUnread      bool `json:"amountUnread,omitempty"`
	AmountFromBalance bool `json:"amountFromBalance,omitempty"`
	// BalanceInferred is true when OCR could not read the balance and the previous balance
	// plus the amount, confirmed by the next row, was used.
	BalanceInferred bool    `json:"balanceInferred,omitempty"`
	Confidence      float64 `json:"confidence,omitempty"`
}

// Statement is one account's statement for one period.
type Statement struct {
	Bank     string `json:"bank,omitempty"`
	Template string `json:"template,omitempty"`
	Source   Source `json:"source"`
	Account  string `json:"account,omitempty"`
	Currency string `json:"currency"`
	// PeriodStart and PeriodEnd are the statement's printed period, when known.
	PeriodStart *Date `json:"periodStart,omitempty"`
	PeriodEnd   *Date `json:"periodEnd,omitempty"`
	// Opening and Closing are the printed balances; nil when the format does not carry
	// them (an OFX file has no opening balance).
	Opening      *Amount       `json:"opening,omitempty"`
	Closing      *Amount       `json:"closing,omitempty"`
	Transactions []Transaction `json:"transactions"`
	// Pages is how many pages the statement spans (PDFs).
	Pages int `json:"pages,omitempty"`
}

// Credits and Debits return the sums of positive and (as a positive number) negative amounts.
func (s *Statement) Credits() Amount {
	var t Amount
	for _, tx := range s.Transactions {
		if tx.Amount > 0 {
			t += tx.Amount
		}
	}
	return t
}

// Debits returns the sum of the debits as a positive amount.
func (s *Statement) Debits() Amount {
	var t Amount
	for _, tx := range s.Transactions {
		if tx.Amount < 0 {
			t -= tx.Amount
		}
	}
	return t
}

func amt(a Amount) *Amount { return &a }
