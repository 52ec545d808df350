package e2e

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/devstack"
	docfix "github.com/svcplatform/svc/internal/documents/fixtures"
	"github.com/svcplatform/svc/internal/statements/fixtures"
)

// uploadStatements posts the files as `file` parts of one analysis upload.
func uploadStatements(c client, files map[string][]byte, order []string, fields map[string]string) response {
	c.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	for _, name := range order {
		fw, err := w.CreateFormFile("file", name)
		if err != nil {
			c.t.Fatal(err)
		}
		_, _ = fw.Write(files[name])
	}
	_ = w.Close()
	req, err := http.NewRequest("POST", c.base+"/api/analyses/upload", &buf)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.send(req)
}

// analysis polls GET /api/analyses/:id until its status is one of want.
func analysis(t *testing.T, c client, id string, within time.Duration, want ...string) map[string]any {
	t.Helper()
	var d map[string]any
	eventually(t, within, fmt.Sprintf("analysis %s to be %v", id, want), func() bool {
		r := c.do("GET", "/api/analyses/"+id, nil)
		if r.Status != 200 {
			t.Fatalf("GET analysis = %d %s", r.Status, r.Raw)
		}
		d = r.data(t)
		for _, w := range want {
			if d["status"] == w {
				return true
			}
		}
		return false
	})
	return d
}

// analysisEvents lists the events of one analysis the sink got.
func analysisEvents(s *eventSink, id string) []orchEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []orchEvent
	for _, ev := range s.events {
		if ev.Data["analysisId"] == id {
			out = append(out, ev)
		}
	}
	return out
}

// waitAnalysisEvent returns the first event name of analysis id, waiting for it.
func waitAnalysisEvent(t *testing.T, s *eventSink, name, id string) orchEvent {
	t.Helper()
	var found orchEvent
	eventually(t, 60*time.Second, name+" of "+id, func() bool {
		for _, ev := range analysisEvents(s, id) {
			if ev.Event == name {
				found = ev
				return true
			}
		}
		return false
	})
	return found
}

// TestStatementsEndToEnd sends bank statements through the real pipeline of the dev stack
// (embedded Temporal, worker with qpdf, poppler and tesseract, SQLite, local blob store)
// with a loopback receiver subscribed through POST /api/webhooks: two consecutive text PDFs
// of one account, a CSV, an encrypted PDF that needs its password, and a file that is no
// statement. Every delivery carries the unified and the X-BankStatement- headers (the
// sink checks both sets on each).
func TestStatementsEndToEnd(t *testing.T) {
	const wrong = "not-the-statement-password"
	s := boot(t, t.TempDir(), bootOptions{secrets: []string{fixtures.Password, wrong}})
	as := func(t *testing.T, key string) client { return client{t: t, base: s.BaseURL, key: key} }
	admin := as(t, s.Credentials.APIKey)
	sink := newEventSink(t)
	sink.subscribe(admin, "*")
	analyst := newPerson(admin, "analyst", "analyses:write", "analyses:view")
	series := fixtures.Series(11, fixtures.Template("rheinbank-de"), 2, 30)

	t.Run("not a statement is refused at upload", func(t *testing.T) {
		r := uploadStatements(as(t, analyst.key), map[string][]byte{"a.bin": {0x00, 0x01, 0x02, 0xff}}, []string{"a.bin"}, nil)
		if r.Status != 415 {
			t.Fatalf("upload = %d %s", r.Status, r.Raw)
		}
	})

	t.Run("pipeline", func(t *testing.T) {
		t.Run("two months of text PDFs: completed, reconciled and continuous", func(t *testing.T) {
			t.Parallel()
			c := as(t, analyst.key)
			files := map[string][]byte{}
			for i, tr := range series {
				b, err := fixtures.TextPDF(tr)
				if err != nil {
					t.Fatal(err)
				}
				files[fmt.Sprintf("m%d.pdf", i+1)] = b
			}
			r := uploadStatements(c, files, []string{"m2.pdf", "m1.pdf"}, map[string]string{"externalRef": "loan-42", "externalId": "ana-text-1"})
			if r.Status != 202 {
				t.Fatalf("upload = %d %s", r.Status, r.Raw)
			}
			id := str(r.data(t)["id"])
			d := analysis(t, c, id, 2*time.Minute, "completed", "requires_review", "failed")
			if d["status"] != "completed" || d["version"] != 1.0 || d["externalId"] != "ana-text-1" {
				t.Fatalf("analysis = %v", d)
			}
			sts := d["statements"].([]any)
			want := len(series[0].Transactions) + len(series[1].Transactions)
			got := 0
			for _, st := range sts {
				m := st.(map[string]any)
				got += int(m["transactions"].(float64))
				if m["bank"] != "Rheinbank AG" || m["currency"] != "EUR" {
					t.Errorf("statement %v", m)
				}
			}
			if len(sts) != 2 || got != want {
				t.Fatalf("%d statements with %d transactions, want 2 with %d", len(sts), got, want)
			}
			rec := d["reconciliation"].(map[string]any)
			if rec["ok"] != true || len(rec["continuity"].([]any)) != 1 || rec["continuity"].([]any)[0].(map[string]any)["ok"] != true {
				t.Errorf("reconciliation %v", rec)
			}
			if f := d["files"].([]any)[0].(map[string]any); f["detection"].(map[string]any)["template"] != "rheinbank-de" || f["kind"] != "pdf" {
				t.Errorf("file %v", f)
			}
			if d["riskScore"].(float64) >= 40 {
				t.Errorf("a clean statement's risk %v, signals %v", d["riskScore"], d["signals"])
			}
			ev := waitAnalysisEvent(t, sink, "analysis.completed", id)
			wantKeys(t, ev, "analysisId", "status", "version", "statements", "transactions", "reconciled", "riskScore", "externalRef")
			if ev.Data["transactions"] != float64(want) || ev.Data["reconciled"] != true || ev.Data["externalRef"] != "loan-42" ||
				ev.Header.Get("X-BankStatement-Event") != "analysis.completed" {
				t.Errorf("analysis.completed = %v %v", ev.Data, ev.Header)
			}
			// Transactions, paged by cursor, in statement order; a debit filter.
			var all []any
			cursor := ""
			for page := 0; page < 10; page++ {
				q := "/api/analyses/" + id + "/transactions?limit=25"
				if cursor != "" {
					q += "&cursor=" + cursor
				}
				l := c.do("GET", q, nil)
				if l.Status != 200 {
					t.Fatalf("transactions = %d %s", l.Status, l.Raw)
				}
				all = append(all, l.Body["rows"].([]any)...)
				if l.Body["nextCursor"] == nil {
					break
				}
				cursor = str(l.Body["nextCursor"])
			}
			if len(all) != want {
				t.Fatalf("listed %d transactions, want %d", len(all), want)
			}
			if l := c.do("GET", "/api/analyses/"+id+"/transactions?direction=debit&limit=500", nil); l.Status != 200 {
				t.Fatalf("debits = %d %s", l.Status, l.Raw)
			} else {
				for _, row := range l.Body["rows"].([]any) {
					if row.(map[string]any)["amount"].(float64) >= 0 {
						t.Errorf("a debit filter listed %v", row)
					}
				}
			}

			// A correction by a key bound to a user: version 2, analysis.corrected.
			first := all[0].(map[string]any)
			amount := first["amount"].(float64) - 100
			cr := c.do("POST", "/api/analyses/"+id+"/corrections", map[string]any{"corrections": []any{
				map[string]any{"statement": first["statement"], "index": first["index"], "amount": amount}}})
			if cr.Status != 201 {
				t.Fatalf("correction = %d %s", cr.Status, cr.Raw)
			}
			nd := cr.data(t)
			// Changing one amount without its printed running balance breaks the reconciliation.
			if nd["version"] != 2.0 || nd["status"] != "requires_review" || nd["reconciliation"].(map[string]any)["ok"] != false {
				t.Errorf("corrected analysis = %v", nd)
			}
			corr := waitAnalysisEvent(t, sink, "analysis.corrected", id)
			wantKeys(t, corr, "analysisId", "version", "previousVersion", "actorUserId")
			if corr.Data["actorUserId"] != analyst.userID || corr.Data["version"] != 2.0 || corr.Data["previousVersion"] != 1.0 {
				t.Errorf("analysis.corrected = %v", corr.Data)
			}
			if l := c.do("GET", "/api/analyses/"+id+"/transactions?version=1&limit=1", nil); l.Status != 200 ||
				l.Body["rows"].([]any)[0].(map[string]any)["amount"] != first["amount"] {
				t.Errorf("version 1 = %d %s", l.Status, l.Raw)
			}
			// A correction of an index the analysis does not have is 400.
			if r := c.do("POST", "/api/analyses/"+id+"/corrections", map[string]any{"corrections": []any{
				map[string]any{"statement": 0, "index": 9999, "amount": 1}}}); r.Status != 400 {
				t.Errorf("correction of no transaction = %d %s", r.Status, r.Raw)
			}
			// A key bound to no user may not correct.
			k := admin.do("POST", "/api/api-keys", map[string]any{"name": "robot", "scopes": []string{"analyses:write"}})
			if k.Status != 201 {
				t.Fatalf("POST /api/api-keys = %d %s", k.Status, k.Raw)
			}
			robot := as(t, str(k.data(t)["key"]))
			if r := robot.do("POST", "/api/analyses/"+id+"/corrections", map[string]any{"corrections": []any{
				map[string]any{"statement": 0, "index": 0, "amount": 1}}}); r.Status != 422 || r.Body["error"] != "api_key_not_bound_to_user" {
				t.Errorf("correction by an unbound key = %d %s", r.Status, r.Raw)
			}
			recordAnalysisHistory(t, s, id, "text_pdfs_completed")
			recordAnalysisHistory(t, s, id+"-correction-2", "correction")
		})

		t.Run("csv: completed", func(t *testing.T) {
			t.Parallel()
			c := as(t, analyst.key)
			r := uploadStatements(c, map[string][]byte{"jan.csv": fixtures.CSV(series[0], false)}, []string{"jan.csv"}, nil)
			if r.Status != 202 {
				t.Fatalf("upload = %d %s", r.Status, r.Raw)
			}
			id := str(r.data(t)["id"])
			d := analysis(t, c, id, time.Minute, "completed", "requires_review", "failed")
			if d["status"] != "completed" || d["statements"].([]any)[0].(map[string]any)["transactions"] != float64(len(series[0].Transactions)) {
				t.Fatalf("analysis = %v", d)
			}
			ins := d["insights"].(map[string]any)
			if len(ins["months"].([]any)) == 0 || len(ins["categories"].([]any)) == 0 {
				t.Errorf("insights %v", ins)
			}
		})

		t.Run("encrypted PDF: password_required, a wrong password, then the right one", func(t *testing.T) {
			t.Parallel()
			c := as(t, analyst.key)
			text, err := fixtures.TextPDF(series[0])
			if err != nil {
				t.Fatal(err)
			}
			locked, err := docfix.Encrypt(context.Background(), text, fixtures.Password, "owner-"+fixtures.Password)
			if err != nil {
				t.Fatal(err)
			}
			r := uploadStatements(c, map[string][]byte{"locked.pdf": locked}, []string{"locked.pdf"}, map[string]string{"externalRef": "enc-1"})
			if r.Status != 202 {
				t.Fatalf("upload = %d %s", r.Status, r.Raw)
			}
			id := str(r.data(t)["id"])
			if d := analysis(t, c, id, time.Minute, "password_required", "failed", "completed"); d["status"] != "password_required" {
				t.Fatalf("analysis = %v", d)
			}
			pr := waitAnalysisEvent(t, sink, "analysis.password_required", id)
			wantKeys(t, pr, "analysisId", "errorMessage", "externalRef")
			if p := c.do("POST", "/api/analyses/"+id+"/password", map[string]any{"password": wrong}); p.Status != 202 || p.data(t)["status"] != "password_required" {
				t.Fatalf("wrong password = %d %s", p.Status, p.Raw)
			}
			if p := c.do("POST", "/api/analyses/"+id+"/password", map[string]any{"password": fixtures.Password}); p.Status != 202 || p.data(t)["status"] == "password_required" {
				t.Fatalf("right password = %d %s", p.Status, p.Raw)
			}
			d := analysis(t, c, id, time.Minute, "completed", "requires_review", "failed")
			if d["status"] != "completed" || d["statements"].([]any)[0].(map[string]any)["transactions"] != float64(len(series[0].Transactions)) {
				t.Fatalf("analysis = %v", d)
			}
			if p := c.do("POST", "/api/analyses/"+id+"/password", map[string]any{"password": fixtures.Password}); p.Status != 409 {
				t.Errorf("a password for a completed analysis = %d %s", p.Status, p.Raw)
			}
			n := 0
			for _, ev := range analysisEvents(sink, id) {
				if ev.Event == "analysis.password_required" {
					n++
				}
			}
			if n != 2 {
				t.Errorf("%d analysis.password_required events, want 2 (no password, then a wrong one)", n)
			}
			recordAnalysisHistory(t, s, id, "password_retries")
		})

		t.Run("a PDF that is no statement: failed in detect", func(t *testing.T) {
			t.Parallel()
			c := as(t, analyst.key)
			r := uploadStatements(c, map[string][]byte{"letter.pdf": docfix.NPWPTextPDF(t)}, []string{"letter.pdf"}, nil)
			if r.Status != 202 {
				t.Fatalf("upload = %d %s", r.Status, r.Raw)
			}
			id := str(r.data(t)["id"])
			d := analysis(t, c, id, time.Minute, "failed", "completed", "requires_review")
			if d["status"] != "failed" || d["failedStage"] != "detect" || d["errorMessage"] == nil {
				t.Fatalf("analysis = %v", d)
			}
			f := waitAnalysisEvent(t, sink, "analysis.failed", id)
			wantKeys(t, f, "analysisId", "errorMessage", "stage", "externalRef")
			if f.Data["stage"] != "detect" || f.Data["errorMessage"] != d["errorMessage"] {
				t.Errorf("analysis.failed = %v", f.Data)
			}
			recordAnalysisHistory(t, s, id, "failed_detect")
		})

		t.Run("an empty CSV: failed in parse", func(t *testing.T) {
			t.Parallel()
			c := as(t, analyst.key)
			r := uploadStatements(c, map[string][]byte{"empty.csv": []byte("Date,Description,Amount\n")}, []string{"empty.csv"}, nil)
			if r.Status != 202 {
				t.Fatalf("upload = %d %s", r.Status, r.Raw)
			}
			id := str(r.data(t)["id"])
			d := analysis(t, c, id, time.Minute, "failed", "completed", "requires_review")
			if d["status"] != "failed" || d["failedStage"] != "parse" {
				t.Fatalf("analysis = %v", d)
			}
		})
	})
}

// recordAnalysisHistory writes the history of workflow id to
// workflows/statements/testdata/analysis_<name>.json when SVC_RECORD_HISTORIES is set, for
// TestAnalysisReplay to replay.
func recordAnalysisHistory(t *testing.T, s *devstack.Stack, id, name string) {
	t.Helper()
	recordHistoryAt(t, s.App.Temporal, id, filepath.Join("..", "workflows", "statements", "testdata", "analysis_"+name+".json"))
}
