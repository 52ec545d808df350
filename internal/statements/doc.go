// Package statements is the bank statement analysis engine: it parses statements (PDF
// text or scans through built-in bank templates, CSV, OFX/QFX, ISO 20022 CAMT.053),
// reconciles them to the cent, computes insights and collects tamper signals.
//
// The stages are plain functions with typed results so that Temporal activities can wrap
// them one to one:
//
//	Read       (*Reader).ReadPDF      text via the documents engine (pdftotext -layout, OCR, qpdf passwords)
//	Detect     Detect                 bank template from PDF metadata and text
//	Parse      ParseLines, ParseCSV, ParseOFX, ParseCAMT
//	Reconcile  Reconcile              opening + credits − debits = closing, running balances, continuity
//	Insights   ComputeInsights        cash flow, income, recurring payments, balances, categories
//	Signals    TamperSignals          metadata, incremental updates, fonts, duplicates; risk 0–100
//
// Money is never a float: every amount is an Amount, a count of minor units (cents).
// Every stage error is a *documents.Error carrying the stage and a message that is safe to
// show to the API caller.
package statements
