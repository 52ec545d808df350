package api_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/svcplatform/svc/api/apitest"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/ids"
	stmt "github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/internal/statements/fixtures"
	"github.com/svcplatform/svc/store"
)

// uploadAnalysis posts parts to POST /api/analyses/upload.
func uploadAnalysis(h *apitest.Harness, key string, parts ...part) *apitest.Response {
	h.T.Helper()
	body, ct := multipartBody(h.T, parts...)
	return h.Send(apitest.Request{Method: "POST", Path: "/api/analyses/upload", Key: key, Body: body,
		Header: http.Header{"Content-Type": {ct}}})
}

// decidedAnalysis stores an analysis of a generated CSV statement, decided as the pipeline
// would (e2e/statements_test.go runs the pipeline itself).
func decidedAnalysis(t *testing.T, h *apitest.Harness, orgID string) *store.Analysis {
	t.Helper()
	ctx := context.Background()
	tr := fixtures.Series(5, fixtures.Template("thames-uk"), 1, 12)[0]
	st, err := stmt.ParseCSV(fixtures.CSV(tr, false), "GBP")
	if err != nil {
		t.Fatal(err)
	}
	a := &store.Analysis{ID: ids.New(ids.Analysis), OrgID: orgID, Files: []store.AnalysisFile{{Filename: "m.csv", Kind: "csv", Size: 1, SHA256: "00", BlobKey: "k"}}}
	if err := h.Store.Statements.CreateAnalysis(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := h.Store.Statements.UpdateAnalysis(ctx, orgID, a.ID, store.AnalysisUpdate{Status: stmt.StatusProcessing}, h.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	res := stmt.Analyze([]*stmt.FileResult{{Kind: stmt.KindCSV, MeanConfidence: 1, Statements: []*stmt.Statement{st}}}, nil, nil)
	if _, err := h.Store.Statements.DecideAnalysis(ctx, orgID, a.ID, res, h.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	got, err := h.Store.Statements.GetAnalysis(ctx, orgID, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestStatementsUploadRefusals: what the upload refuses before anything is stored, each
// answer checked against openapi.yaml by the harness.
func TestStatementsUploadRefusals(t *testing.T) {
	h := apitest.New(t, apitest.Options{Config: func(c *config.Config) { c.Documents.MaxUploadBytes = 4096 }})
	key := h.Key("analyses:write")
	csv := []byte("Date,Description,Amount\n2024-01-02,COFFEE,-3.50\n")
	cases := []struct {
		name   string
		parts  []part
		status int
		field  string
	}{
		{"no file", []part{field("externalRef", "x")}, 400, "file"},
		{"an unknown field", []part{{name: "file", filename: "a.csv", data: csv}, field("colour", "red")}, 400, "colour"},
		{"a password for a CSV", []part{{name: "file", filename: "a.csv", data: csv}, field("password", "pw")}, 400, "password"},
		{"an empty file", []part{{name: "file", filename: "a.csv"}}, 400, "file"},
		{"not a statement", []part{{name: "file", filename: "a.zip", data: []byte("PK\x03\x04\x00\x00binary")}}, 415, ""},
		{"too large in all", []part{{name: "file", filename: "a.csv", data: csv}, {name: "file", filename: "b.csv", data: bytes.Repeat(csv, 100)}}, 413, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := uploadAnalysis(h.With(t), key, tc.parts...)
			if r.Status != tc.status {
				t.Fatalf("upload = %d %s", r.Status, r.Body)
			}
			if tc.field != "" {
				fe, _ := r.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)
				if _, ok := fe[tc.field]; !ok {
					t.Errorf("fieldErrors %v lack %s", fe, tc.field)
				}
			}
		})
	}
	// Without Temporal nothing durable can start: 503, and no analysis is left behind.
	if r := uploadAnalysis(h, key, part{name: "file", filename: "a.csv", data: csv}); r.Status != 503 {
		t.Errorf("upload without Temporal = %d %s", r.Status, r.Body)
	}
	if rows, _, _ := h.Store.Statements.ListAnalyses(context.Background(), h.Org.ID, store.CursorPage{Limit: 5}, store.Filter{}); len(rows) != 0 {
		t.Errorf("%d analyses stored", len(rows))
	}
}

// TestAnalysesReadAndConflicts: a decided analysis with its transactions (cursor, filters),
// another organisation's 404, the 409 of a password for an analysis that waits for none, and
// the 422 of a correction by a key bound to no user.
func TestAnalysesReadAndConflicts(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	a := decidedAnalysis(t, h, h.Org.ID)
	view := h.Key("analyses:view")
	d := h.Do("GET", "/api/analyses/"+a.ID, view, nil)
	if d.Status != 200 || d.Data()["status"] != "completed" || d.Data()["version"] != 1.0 {
		t.Fatalf("GET = %d %s", d.Status, d.Body)
	}
	if sts := d.Data()["statements"].([]any); len(sts) != 1 || sts[0].(map[string]any)["transactions"] != 12.0 {
		t.Errorf("statements %v", sts)
	}
	var listed int
	next := ""
	for range 10 {
		p := "/api/analyses/" + a.ID + "/transactions?limit=5"
		if next != "" {
			p += "&cursor=" + next
		}
		r := h.Do("GET", p, view, nil)
		if r.Status != 200 {
			t.Fatalf("transactions = %d %s", r.Status, r.Body)
		}
		listed += len(r.JSON["rows"].([]any))
		if r.JSON["nextCursor"] == nil {
			break
		}
		next = r.JSON["nextCursor"].(string)
	}
	if listed != 12 {
		t.Errorf("listed %d transactions over the pages, want 12", listed)
	}
	if r := h.Do("GET", "/api/analyses/"+a.ID+"/transactions?direction=sideways", view, nil); r.Status != 400 {
		t.Errorf("a bad direction = %d", r.Status)
	}
	if r := h.Do("GET", "/api/analyses/"+a.ID+"/transactions?version=7", view, nil); r.Status != 404 {
		t.Errorf("an unknown version = %d", r.Status)
	}
	if r := h.Do("GET", "/api/analyses?status=completed", view, nil); r.Status != 200 || len(r.JSON["rows"].([]any)) != 1 {
		t.Errorf("list = %d %s", r.Status, r.Body)
	}
	other := h.NewTenant("other")
	for _, p := range []string{"/api/analyses/" + a.ID, "/api/analyses/" + a.ID + "/transactions"} {
		if r := h.Do("GET", p, other.Key, nil); r.Status != 404 {
			t.Errorf("another organisation's GET %s = %d", p, r.Status)
		}
	}
	write := h.Key("analyses:write")
	if r := h.Do("POST", "/api/analyses/"+a.ID+"/password", write, map[string]any{"password": "x"}); r.Status != 409 ||
		r.Error() != "state conflict: cannot transition completed → processing" {
		t.Errorf("password = %d %s", r.Status, r.Body)
	}
	if r := h.Do("POST", "/api/analyses/"+a.ID+"/password", write, map[string]any{}); r.Status != 400 {
		t.Errorf("no password = %d %s", r.Status, r.Body)
	}
	fix := map[string]any{"corrections": []any{map[string]any{"statement": 0, "index": 0, "amount": 1}}}
	if r := h.Do("POST", "/api/analyses/"+a.ID+"/corrections", write, fix); r.Status != 422 || r.Error() != "api_key_not_bound_to_user" {
		t.Errorf("correction by an unbound key = %d %s", r.Status, r.Body)
	}
	bad := map[string]any{"corrections": []any{map[string]any{"statement": 3, "index": 0, "amount": 1}}}
	if r := h.Do("POST", "/api/analyses/"+a.ID+"/corrections", h.AdminKey, bad); r.Status != 400 {
		t.Errorf("correction of no statement = %d %s", r.Status, r.Body)
	}
	if r := h.Do("POST", "/api/analyses/"+a.ID+"/corrections", other.Key, fix); r.Status != 404 {
		t.Errorf("another organisation's correction = %d %s", r.Status, r.Body)
	}
}

// TestStatementTemplatesAndCategoryRules: an organisation's templates (every bad field
// named; another organisation cannot see them) and category rules.
func TestStatementTemplatesAndCategoryRules(t *testing.T) {
	h := apitest.New(t, apitest.Options{})
	bad := h.Do("POST", "/api/statement-templates", h.AdminKey, map[string]any{
		"bank": "", "dateLayout": "nonsense", "number": map[string]any{"decimal": ".", "thousands": "."},
		"columns": []any{map[string]any{"kind": "date", "header": "Date"}}, "openingLabels": []string{}, "closingLabels": []string{}})
	if bad.Status != 400 {
		t.Fatalf("bad template = %d %s", bad.Status, bad.Body)
	}
	fe := bad.JSON["details"].(map[string]any)["fieldErrors"].(map[string]any)
	for _, k := range []string{"bank", "dateLayout", "number.thousands", "columns", "markers"} {
		if _, ok := fe[k]; !ok {
			t.Errorf("fieldErrors %v lack %s", fe, k)
		}
	}
	good := map[string]any{
		"bank": "Harbour Credit Union", "markers": []string{"Harbour Credit Union"}, "currency": "NZD", "dateLayout": "02/01/2006",
		"number":        map[string]any{"decimal": ".", "thousands": ","},
		"columns":       []any{map[string]any{"kind": "date", "header": "Date"}, map[string]any{"kind": "description", "header": "Particulars"}, map[string]any{"kind": "amount", "header": "Amount"}, map[string]any{"kind": "balance", "header": "Balance"}},
		"openingLabels": []string{"Opening balance"}, "closingLabels": []string{"Closing balance"},
	}
	c := h.Do("POST", "/api/statement-templates", h.AdminKey, good)
	if c.Status != 201 || c.Data()["bank"] != "Harbour Credit Union" {
		t.Fatalf("create = %d %s", c.Status, c.Body)
	}
	id := c.Data()["id"].(string)
	tmpls, err := h.Store.Statements.Templates(context.Background(), h.Org.ID)
	if err != nil || tmpls[0].ID != id || tmpls[0].Number.Thousands != "," {
		t.Errorf("detection would try %+v first (%v)", tmpls[0], err)
	}
	other := h.NewTenant("other")
	if r := h.Do("GET", "/api/statement-templates/"+id, other.Key, nil); r.Status != 404 {
		t.Errorf("another organisation's GET = %d", r.Status)
	}
	if r := h.Do("GET", "/api/statement-templates", h.AdminKey, nil); r.Status != 200 || len(r.JSON["rows"].([]any)) != 1 {
		t.Errorf("list = %d %s", r.Status, r.Body)
	}
	if r := h.Do("DELETE", "/api/statement-templates/"+id, other.Key, nil); r.Status != 404 {
		t.Errorf("another organisation's DELETE = %d", r.Status)
	}
	if r := h.Do("DELETE", "/api/statement-templates/"+id, h.AdminKey, nil); r.Status != 204 {
		t.Errorf("DELETE = %d %s", r.Status, r.Body)
	}

	if r := h.Do("PUT", "/api/statement-category-rules", h.AdminKey, map[string]any{"rules": []any{map[string]any{"category": "", "contains": []string{}, "direction": "up"}}}); r.Status != 400 {
		t.Errorf("bad rules = %d %s", r.Status, r.Body)
	}
	rules := map[string]any{"rules": []any{map[string]any{"category": "coffee", "contains": []string{"espresso bar"}, "direction": "debit"}}}
	if r := h.Do("PUT", "/api/statement-category-rules", h.AdminKey, rules); r.Status != 200 {
		t.Fatalf("PUT rules = %d %s", r.Status, r.Body)
	}
	g := h.Do("GET", "/api/statement-category-rules", h.AdminKey, nil)
	if g.Status != 200 || len(g.Data()["rules"].([]any)) != 1 || len(g.Data()["defaults"].([]any)) == 0 {
		t.Errorf("GET rules = %d %s", g.Status, g.Body)
	}
	if g := h.Do("GET", "/api/statement-category-rules", other.Key, nil); len(g.Data()["rules"].([]any)) != 0 {
		t.Errorf("another organisation's rules %s", g.Body)
	}
}

// FuzzUploadAnalysis: whatever multipart body arrives, the upload answers a refusal (400, 413,
// 415) or, as this harness has no Temporal, 503, never a 5xx of its own, and keeps nothing.
func FuzzUploadAnalysis(f *testing.F) {
	h := apitest.New(f, apitest.Options{Config: func(c *config.Config) { c.Documents.MaxUploadBytes = 1 << 16 }})
	h.NoRateLimits(h.Org.ID)
	key := h.Key("analyses:write")
	const boundary = "fuzzboundary"
	body := func(parts ...part) []byte {
		b, _ := multipartBodyWith(f, boundary, parts...)
		return b
	}
	csv := []byte("Date,Description,Amount\n2024-01-02,COFFEE,-3.50\n")
	ofx := []byte("OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BANKMSGSRSV1>")
	for _, seed := range [][]byte{
		body(part{name: "file", filename: "a.csv", data: csv}),
		body(part{name: "file", filename: "a.csv", data: csv}, part{name: "file", filename: "b.ofx", data: ofx}, field("externalId", "fuzz-1")),
		body(field("password", "x"), part{name: "file", filename: "s.pdf", data: []byte("%PDF-1.4\n%%EOF\n")}),
		body(part{name: "file", filename: "../../x.csv", data: csv[:10]}),
		body(field("externalRef", "r")),
		[]byte("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\nDate,"),
		[]byte("not multipart"),
		{},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		res := h.With(t).Send(apitest.Request{Method: "POST", Path: "/api/analyses/upload", Key: key, Body: raw,
			Header: http.Header{"Content-Type": {"multipart/form-data; boundary=" + boundary}}})
		switch res.Status {
		case 400, 413, 415, 503:
		default:
			t.Fatalf("%q → %d %s", raw, res.Status, res.Body)
		}
		if rows, _, _ := h.Store.Statements.ListAnalyses(context.Background(), h.Org.ID, store.CursorPage{Limit: 1}, store.Filter{}); len(rows) != 0 {
			t.Fatalf("%q left an analysis", raw)
		}
	})
}
