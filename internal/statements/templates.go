package statements

import (
	"strings"
)

// ColumnKind says what a statement column holds.
type ColumnKind string

// The column kinds.
const (
	ColDate        ColumnKind = "date"
	ColValueDate   ColumnKind = "value_date"
	ColDescription ColumnKind = "description"
	ColDebit       ColumnKind = "debit"
	ColCredit      ColumnKind = "credit"
	ColAmount      ColumnKind = "amount" // signed: credits positive, debits negative
	ColBalance     ColumnKind = "balance"
)

// Column is one column of a statement's transaction table, named by its printed header.
type Column struct {
	Kind   ColumnKind `json:"kind"`
	Header string     `json:"header"`
}

// Template describes one bank's statement layout. Templates are data: the built-in ones
// below, and an organisation's own ones stored and sent the same way.
type Template struct {
	ID   string `json:"id"`
	Bank string `json:"bank"`
	// Markers are phrases of the printed text that identify the bank.
	Markers []string `json:"markers"`
	// Producers are substrings of the PDF Producer or Creator the bank's system writes.
	Producers []string `json:"producers"`
	Currency  string   `json:"currency"`
	// DateLayout is a Go time layout, e.g. "02.01.2006" or "02 Jan 2006".
	DateLayout string       `json:"dateLayout"`
	Number     NumberFormat `json:"number"`
	// Columns are in printed order, left to right.
	Columns       []Column `json:"columns"`
	OpeningLabels []string `json:"openingLabels"`
	ClosingLabels []string `json:"closingLabels"`
	AccountLabel  string   `json:"accountLabel"`
	PeriodLabel   string   `json:"periodLabel"`
}

// has reports whether the template has a column of kind k.
func (t *Template) has(k ColumnKind) bool {
	for _, c := range t.Columns {
		if c.Kind == k {
			return true
		}
	}
	return false
}

// dateWords is how many words a date of the template's layout spans.
func (t *Template) dateWords() int { return strings.Count(t.DateLayout, " ") + 1 }

// BuiltinTemplates returns the built-in bank templates: five layouts with different
// column orders, date formats, debit/credit columns or signed amounts, and the number
// formats of several locales.
func BuiltinTemplates() []Template {
	return []Template{
		{
			ID: "northwind-us", Bank: "Northwind Bank", Markers: []string{"Northwind Bank"},
			Producers: []string{"Northwind eStatements"}, Currency: "USD",
			DateLayout: "01/02/2006", Number: FormatUS,
			Columns: []Column{{ColDate, "Date"}, {ColDescription, "Description"}, {ColDebit, "Withdrawals"},
				{ColCredit, "Deposits"}, {ColBalance, "Balance"}},
			OpeningLabels: []string{"Beginning Balance"}, ClosingLabels: []string{"Ending Balance"},
			AccountLabel: "Account Number", PeriodLabel: "Statement Period",
		},
		{
			ID: "rheinbank-de", Bank: "Rheinbank AG", Markers: []string{"Rheinbank AG", "Kontoauszug"},
			Producers: []string{"RB Kontoauszug"}, Currency: "EUR",
			DateLayout: "02.01.2006", Number: FormatEU,
			Columns: []Column{{ColDate, "Buchung"}, {ColValueDate, "Valuta"}, {ColAmount, "Betrag"},
				{ColBalance, "Saldo"}, {ColDescription, "Verwendungszweck"}},
			OpeningLabels: []string{"Alter Kontostand"}, ClosingLabels: []string{"Neuer Kontostand"},
			AccountLabel: "IBAN", PeriodLabel: "Zeitraum",
		},
		{
			ID: "alpenbank-ch", Bank: "Alpenbank", Markers: []string{"Alpenbank"},
			Producers: []string{"Alpenbank Document Services"}, Currency: "CHF",
			DateLayout: "2006-01-02", Number: FormatCH,
			Columns: []Column{{ColDate, "Datum"}, {ColDescription, "Text"}, {ColCredit, "Gutschrift"},
				{ColDebit, "Belastung"}, {ColBalance, "Saldo"}},
			OpeningLabels: []string{"Anfangssaldo"}, ClosingLabels: []string{"Schlusssaldo"},
			AccountLabel: "Konto", PeriodLabel: "Periode",
		},
		{
			ID: "lumiere-fr", Bank: "Banque Lumière", Markers: []string{"Banque Lumière", "Banque Lumiere"},
			Producers: []string{"Lumiere Editique"}, Currency: "EUR",
			DateLayout: "02/01/2006", Number: FormatFR,
			Columns: []Column{{ColDate, "Date"}, {ColDescription, "Libellé"}, {ColDebit, "Débit"},
				{ColCredit, "Crédit"}},
			OpeningLabels: []string{"Solde précédent"}, ClosingLabels: []string{"Nouveau solde"},
			AccountLabel: "Compte", PeriodLabel: "Période",
		},
		{
			ID: "thames-uk", Bank: "Thames Savings Bank", Markers: []string{"Thames Savings Bank"},
			Producers: []string{"TSB Statements Engine"}, Currency: "GBP",
			DateLayout: "02 Jan 2006", Number: FormatUS,
			Columns: []Column{{ColDate, "Date"}, {ColDescription, "Details"}, {ColAmount, "Amount"},
				{ColBalance, "Balance"}},
			OpeningLabels: []string{"Balance brought forward"}, ClosingLabels: []string{"Balance carried forward"},
			AccountLabel: "Account", PeriodLabel: "Period",
		},
	}
}

// fold lower-cases s and removes the accents OCR often drops, so that printed labels
// match what was read.
func fold(s string) string { return accentFolder.Replace(strings.ToLower(s)) }

var accentFolder = strings.NewReplacer("é", "e", "è", "e", "ê", "e", "à", "a", "â", "a", "ç", "c",
	"ô", "o", "û", "u", "ù", "u", "î", "i", "ï", "i", "ä", "a", "ö", "o", "ü", "u", "ß", "ss")
