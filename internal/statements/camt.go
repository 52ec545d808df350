package statements

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// camtDoc is the part of an ISO 20022 camt.053 document the parser reads (element names
// match in any namespace version).
type camtDoc struct {
	Stmts []camtStmt `xml:"BkToCstmrStmt>Stmt"`
}

type camtStmt struct {
	ID   string `xml:"Id"`
	Acct struct {
		IBAN  string `xml:"Id>IBAN"`
		Other string `xml:"Id>Othr>Id"`
		Ccy   string `xml:"Ccy"`
	} `xml:"Acct"`
	From string     `xml:"FrToDt>FrDtTm"`
	To   string     `xml:"FrToDt>ToDtTm"`
	Bals []camtBal  `xml:"Bal"`
	Ntry []camtNtry `xml:"Ntry"`
}

type camtAmt struct {
	Ccy   string `xml:"Ccy,attr"`
	Value string `xml:",chardata"`
}

type camtDate struct {
	Dt   string `xml:"Dt"`
	DtTm string `xml:"DtTm"`
}

type camtBal struct {
	Code      string   `xml:"Tp>CdOrPrtry>Cd"`
	Amt       camtAmt  `xml:"Amt"`
	CdtDbtInd string   `xml:"CdtDbtInd"`
	Dt        camtDate `xml:"Dt"`
}

type camtNtry struct {
	Amt       camtAmt  `xml:"Amt"`
	CdtDbtInd string   `xml:"CdtDbtInd"`
	BookgDt   camtDate `xml:"BookgDt"`
	ValDt     camtDate `xml:"ValDt"`
	Ref       string   `xml:"AcctSvcrRef"`
	Info      string   `xml:"AddtlNtryInf"`
	Ustrd     []string `xml:"NtryDtls>TxDtls>RmtInf>Ustrd"`
	Cdtr      string   `xml:"NtryDtls>TxDtls>RltdPties>Cdtr>Nm"`
	Dbtr      string   `xml:"NtryDtls>TxDtls>RltdPties>Dbtr>Nm"`
}

// maxCAMTBytes bounds a CAMT file.
const maxCAMTBytes = 32 << 20

// ParseCAMT reads an ISO 20022 camt.053 bank-to-customer statement: each Stmt becomes a
// statement with its opening (OPBD, else PRCD) and closing (CLBD) booked balances, and each
// entry a transaction (debits negative), described by the counterparty, the remittance
// information and the additional entry information.
func ParseCAMT(data []byte) ([]*Statement, error) {
	if len(data) > maxCAMTBytes {
		return nil, stageErr(StageParse, ErrTooLarge, "the CAMT file is too large", nil)
	}
	var doc camtDoc
	if err := decodeCAMT(data, &doc); err != nil {
		return nil, stageErr(StageParse, ErrMalformed, "the CAMT file is not well-formed XML", err)
	}
	if len(doc.Stmts) == 0 {
		return nil, stageErr(StageParse, ErrNotStatement, "the CAMT file holds no statement (BkToCstmrStmt/Stmt)", nil)
	}
	var out []*Statement
	for si, s := range doc.Stmts {
		st := &Statement{Source: SourceCAMT, Account: cmpOr(s.Acct.IBAN, s.Acct.Other), Currency: s.Acct.Ccy, Transactions: []Transaction{}}
		for _, b := range s.Bals {
			a, err := camtAmount(b.Amt, b.CdtDbtInd)
			if err != nil {
				return nil, stageErr(StageParse, ErrMalformed, fmt.Sprintf("statement %d: the %s balance %q does not parse", si+1, b.Code, clip(b.Amt.Value)), nil)
			}
			st.Currency = cmpOr(st.Currency, b.Amt.Ccy)
			switch b.Code {
			case "OPBD":
				st.Opening = amt(a)
			case "PRCD":
				if st.Opening == nil {
					st.Opening = amt(a)
				}
			case "CLBD":
				st.Closing = amt(a)
			}
		}
		if len(s.Ntry) > maxRows {
			return nil, stageErr(StageParse, ErrTooLarge, "the CAMT statement has too many entries", nil)
		}
		for i, n := range s.Ntry {
			a, err := camtAmount(n.Amt, n.CdtDbtInd)
			if err != nil {
				return nil, stageErr(StageParse, ErrMalformed, fmt.Sprintf("entry %d: the amount %q does not parse", i+1, clip(n.Amt.Value)), nil)
			}
			d, ok := camtDay(n.BookgDt)
			if !ok {
				if d, ok = camtDay(n.ValDt); !ok {
					return nil, stageErr(StageParse, ErrMalformed, fmt.Sprintf("entry %d has no booking date", i+1), nil)
				}
			}
			party := n.Cdtr
			if a > 0 {
				party = n.Dbtr
			}
			desc := strings.Join(strings.Fields(strings.Join(append([]string{party}, append(n.Ustrd, n.Info)...), " ")), " ")
			st.Transactions = append(st.Transactions, Transaction{Date: d, Description: desc, Amount: a, Reference: n.Ref,
				Currency: cmpOr(n.Amt.Ccy, st.Currency), Confidence: 1})
		}
		if t, ok := camtDay(camtDate{DtTm: s.From}); ok {
			st.PeriodStart = &t
		}
		if t, ok := camtDay(camtDate{DtTm: s.To}); ok {
			st.PeriodEnd = &t
		}
		finishFileStatement(st)
		out = append(out, st)
	}
	return out, nil
}

func decodeCAMT(data []byte, doc *camtDoc) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	// Only UTF-8 (and its ASCII subset) is read; other encodings are refused, not guessed.
	dec.CharsetReader = func(label string, _ io.Reader) (io.Reader, error) {
		return nil, fmt.Errorf("unsupported charset %q", label)
	}
	return dec.Decode(doc)
}

func camtAmount(a camtAmt, ind string) (Amount, error) {
	v, err := parseLoose(a.Value, FormatPlain)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, ErrAmount
	}
	switch strings.TrimSpace(ind) {
	case "DBIT":
		return -v, nil
	case "CRDT":
		return v, nil
	}
	return 0, ErrAmount
}

func camtDay(d camtDate) (Date, bool) {
	s := strings.TrimSpace(cmpOr(d.Dt, d.DtTm))
	if len(s) < 10 {
		return Date{}, false
	}
	t, err := time.Parse("2006-01-02", s[:10])
	return t, err == nil
}
