package statements

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	stmt "github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/store"
)

// Analyses (statements product): an upload is stored (blob store and an Analysis row,
// status uploaded) and its AnalysisPipeline workflow started (workflow id = analysis id);
// the pipeline's activities keep the row in step, so lists and details read the store only.
// Amounts are integers in minor units (cents), credits positive and debits negative.

// analysisView is an analysis as lists show it.
type analysisView struct {
	ID           string     `json:"id"`
	Status       string     `json:"status"`
	Version      int        `json:"version"`
	Files        []fileView `json:"files"`
	RiskScore    *int       `json:"riskScore"`
	Reasons      []string   `json:"reasons"`
	FailedStage  *string    `json:"failedStage"`
	ErrorMessage *string    `json:"errorMessage"`
	ExternalRef  *string    `json:"externalRef"`
	ExternalID   *string    `json:"externalId"`
	UploadedBy   *string    `json:"uploadedBy"`
	CreatedAt    string     `json:"createdAt"`
	UpdatedAt    string     `json:"updatedAt"`
	CompletedAt  *string    `json:"completedAt"`
}

// fileView is one uploaded file, with what the pipeline read of it once decided.
type fileView struct {
	Filename   string          `json:"filename"`
	Kind       string          `json:"kind"`
	Size       int64           `json:"size"`
	SHA256     string          `json:"sha256"`
	Pages      *int            `json:"pages"`
	Scanned    *bool           `json:"scanned"`
	Detection  *stmt.Detection `json:"detection"`
	Metadata   *stmt.PDFMeta   `json:"pdfMetadata"`
	Confidence *float64        `json:"meanConfidence"`
	Statements []int           `json:"statements"`
}

// analysisDetailView is one analysis with its latest version's result.
type analysisDetailView struct {
	analysisView
	Statements     []statementView      `json:"statements"`
	Reconciliation *stmt.Reconciliation `json:"reconciliation"`
	Insights       *stmt.Insights       `json:"insights"`
	Signals        *stmt.Signals        `json:"signals"`
}

// statementView is one parsed statement without its transactions (GET .../transactions).
type statementView struct {
	Index        int          `json:"index"`
	File         int          `json:"file"`
	Bank         *string      `json:"bank"`
	Template     *string      `json:"template"`
	Source       stmt.Source  `json:"source"`
	Account      *string      `json:"account"`
	Currency     string       `json:"currency"`
	PeriodStart  *string      `json:"periodStart"`
	PeriodEnd    *string      `json:"periodEnd"`
	Opening      *stmt.Amount `json:"openingBalance"`
	Closing      *stmt.Amount `json:"closingBalance"`
	Credits      stmt.Amount  `json:"credits"`
	Debits       stmt.Amount  `json:"debits"`
	Transactions int          `json:"transactions"`
	Pages        int          `json:"pages"`
}

func newAnalysisView(a *store.Analysis) analysisView {
	v := analysisView{
		ID: a.ID, Status: a.Status, Version: a.Version, Files: make([]fileView, len(a.Files)), Reasons: []string{},
		FailedStage: api.Nullable(a.FailedStage), ErrorMessage: api.Nullable(a.ErrorMessage), ExternalRef: api.Nullable(a.ExternalRef),
		ExternalID: api.Nullable(a.ExternalID), UploadedBy: api.Nullable(a.UploadedBy), CreatedAt: api.Timestamp(a.CreatedAt),
		UpdatedAt: api.Timestamp(a.UpdatedAt), CompletedAt: api.TimestampPtr(a.CompletedAt),
	}
	for i, f := range a.Files {
		v.Files[i] = fileView{Filename: f.Filename, Kind: f.Kind, Size: f.Size, SHA256: f.SHA256, Statements: []int{}}
	}
	if a.Result != nil {
		risk := a.RiskScore
		v.RiskScore = &risk
		v.Reasons = api.NonNil(a.Result.Reasons)
		n := 0
		for _, fr := range a.Result.Files {
			if fr == nil || fr.File < 0 || fr.File >= len(v.Files) {
				continue
			}
			fv := &v.Files[fr.File]
			pages, scanned, conf := fr.Pages, fr.Scanned, fr.MeanConfidence
			fv.Pages, fv.Scanned, fv.Confidence, fv.Detection, fv.Metadata = &pages, &scanned, &conf, fr.Detection, fr.Meta
			for range fr.Statements {
				fv.Statements = append(fv.Statements, n)
				n++
			}
		}
	}
	return v
}

func newAnalysisDetailView(a *store.Analysis) analysisDetailView {
	v := analysisDetailView{analysisView: newAnalysisView(a), Statements: []statementView{}}
	if a.Result == nil {
		return v
	}
	v.Reconciliation, v.Insights, v.Signals = a.Result.Reconciliation, a.Result.Insights, a.Result.Signals
	fileOf := map[int]int{}
	for i, f := range v.Files {
		for _, s := range f.Statements {
			fileOf[s] = i
		}
	}
	for i, st := range a.Result.Statements {
		v.Statements = append(v.Statements, statementView{
			Index: i, File: fileOf[i], Bank: api.Nullable(st.Bank), Template: api.Nullable(st.Template), Source: st.Source,
			Account: api.Nullable(st.Account), Currency: st.Currency, PeriodStart: datePtr(st.PeriodStart), PeriodEnd: datePtr(st.PeriodEnd),
			Opening: st.Opening, Closing: st.Closing, Credits: st.Credits(), Debits: st.Debits(), Transactions: len(st.Transactions), Pages: st.Pages,
		})
	}
	return v
}

func datePtr(d *stmt.Date) *string {
	if d == nil {
		return nil
	}
	s := d.Format(time.DateOnly)
	return &s
}

func analysisStatuses() []string {
	var out []string
	for _, s := range stmt.Statuses() {
		out = append(out, string(s))
	}
	return out
}

// listAnalyses answers GET /api/analyses (cursor; filters status, externalId).
func (h *Handler) listAnalyses(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{Cursor: true, Filters: []string{api.FilterStatus, api.FilterExternalID, api.FilterFrom, api.FilterTo},
		Statuses: analysisStatuses()})
	if !ok {
		return
	}
	rows, next, err := h.Store.Statements.ListAnalyses(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Cursor, q.Filter)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.CursorRows(c, rows, next, newAnalysisView, nil)
}

// loadAnalysis loads the path's analysis of the caller's organisation (404 otherwise).
func (h *Handler) loadAnalysis(c *gin.Context) (*store.Analysis, bool) {
	a, err := h.Store.Statements.GetAnalysis(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return nil, false
	}
	return a, true
}

// getAnalysis answers GET /api/analyses/{id}: the latest version.
func (h *Handler) getAnalysis(c *gin.Context) {
	a, ok := h.loadAnalysis(c)
	if !ok {
		return
	}
	api.OK(c, newAnalysisDetailView(a))
}

// transactionView is one transaction with where it is.
type transactionView struct {
	Statement int `json:"statement"`
	stmt.Transaction
}

// listTransactions answers GET /api/analyses/{id}/transactions: the transactions of the
// latest version (or of ?version=N) in statement order, cursor-paged; filters statement,
// category, direction (credit, debit), q (description), from and to (booking dates).
func (h *Handler) listTransactions(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{Cursor: true, MaxLimit: 500, Filters: []string{api.FilterQ, api.FilterFrom, api.FilterTo},
		Extra: []string{"statement", "category", "direction", "version"}})
	if !ok {
		return
	}
	f, fe := parseTxFilter(c)
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	a, ok := h.loadAnalysis(c)
	if !ok {
		return
	}
	res := a.Result
	if f.version > 0 && f.version != a.Version {
		v, err := h.Store.Statements.GetVersion(c.Request.Context(), a.OrgID, a.ID, f.version)
		if !api.Loaded(c, err) {
			return
		}
		res = v.Result
	}
	rows := []transactionView{}
	var next *store.Cursor
	if res != nil {
		rows, next = pageTransactions(res, q, f)
	}
	api.CursorList(c, rows, api.NextCursor(next), nil)
}

// txFilter holds the transaction filters beyond the common ones.
type txFilter struct {
	statement int // -1: every statement
	category  string
	direction string
	version   int
}

func parseTxFilter(c *gin.Context) (txFilter, api.FieldErrors) {
	f, fe := txFilter{statement: -1}, api.FieldErrors{}
	if v := c.Query("statement"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			fe.Add("statement", "must be a statement's index (0, 1, …)")
		}
		f.statement = n
	}
	if v := c.Query("version"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			fe.Add("version", "must be a version number (1, 2, …)")
		}
		f.version = n
	}
	f.category = c.Query("category")
	if len(f.category) > 64 {
		fe.Add("category", "must be at most 64 characters")
	}
	switch f.direction = c.Query("direction"); f.direction {
	case "", "credit", "debit":
	default:
		fe.Add("direction", "must be credit or debit")
	}
	return f, fe
}

// pageTransactions returns the page of matching transactions after q's cursor. A cursor is
// the last row's booking date and position ("<statement>.<index>").
func pageTransactions(res *stmt.Result, q api.ListQuery, f txFilter) ([]transactionView, *store.Cursor) {
	after := [2]int{-1, -1}
	if q.Cursor.After != nil {
		_, _ = fmt.Sscanf(q.Cursor.After.ID, "%d.%d", &after[0], &after[1])
	}
	needle := strings.ToLower(q.Filter.Q)
	rows := []transactionView{}
	for si, st := range res.Statements {
		if f.statement >= 0 && si != f.statement {
			continue
		}
		for _, tx := range st.Transactions {
			if si < after[0] || si == after[0] && tx.Index <= after[1] {
				continue
			}
			switch {
			case f.category != "" && tx.Category != f.category,
				f.direction == "credit" && tx.Amount <= 0, f.direction == "debit" && tx.Amount >= 0,
				needle != "" && !strings.Contains(strings.ToLower(tx.Description), needle),
				q.Filter.From != nil && tx.Date.Before(*q.Filter.From),
				q.Filter.To != nil && (q.Filter.ToExclusive && !tx.Date.Before(*q.Filter.To) || !q.Filter.ToExclusive && tx.Date.After(*q.Filter.To)):
				continue
			}
			if len(rows) == q.Cursor.Limit {
				last := rows[len(rows)-1]
				return rows, &store.Cursor{Time: last.Date, ID: fmt.Sprintf("%d.%d", last.Statement, last.Index)}
			}
			rows = append(rows, transactionView{Statement: si, Transaction: tx})
		}
	}
	return rows, nil
}
