package cases

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/svcplatform/svc/config"
	domain "github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
	casewf "github.com/svcplatform/svc/workflows/cases"
)

// TestDeliverSAR delivers a rendered filing to a loopback regulator: the SSRF guard refuses
// loopback unless allowed, a 2xx acknowledges, a 422 rejects with its reason, a 503 is an
// error to retry that is kept on the filing.
func TestDeliverSAR(t *testing.T) {
	st := storetest.Open(t, storetest.Backends(t)[0])
	ctx := context.Background()
	org := "org_" + ids.New(ids.Organization)[4:]
	c, err := st.Cases.CreateCase(ctx, store.NewCase{ID: ids.New(ids.Case), OrgID: org, Title: "x", Priority: "low", DueAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	f := &store.SARFiling{ID: ids.New(ids.SARFiling), OrgID: org, CaseID: c.ID, ActivityFrom: "2026-01-01", ActivityTo: "2026-01-31",
		Amount: 10, Currency: "EUR", Narrative: "n", FiledByID: "usr_1"}
	if err := st.Cases.CreateSAR(ctx, f); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Cases.SubmitSAR(ctx, org, f.ID, "usr_2", ""); err != nil {
		t.Fatal(err)
	}
	status, answer := 200, `{"reference":"FIU-9"}`
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = r.Header.Get("Idempotency-Key") + " " + string(b)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(answer))
	}))
	defer srv.Close()
	in := casewf.SARInput{OrgID: org, FilingID: f.ID, CaseID: c.ID}
	deliver := func(allow []string) (casewf.DeliveryResult, error) {
		cfg := &config.Config{Environment: "sandbox", Cases: config.CasesConfig{RegulatorURL: srv.URL, RegulatorAllowCIDRs: allow, DeliveryAttempts: 3}}
		a, err := New(cfg, st, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var s testsuite.WorkflowTestSuite
		env := s.NewTestActivityEnvironment()
		env.RegisterActivity(a.RenderSAR)
		env.RegisterActivity(a.DeliverSAR)
		if _, err := env.ExecuteActivity(a.RenderSAR, in); err != nil {
			t.Fatal(err)
		}
		v, err := env.ExecuteActivity(a.DeliverSAR, in)
		var res casewf.DeliveryResult
		if err == nil {
			err = v.Get(&res)
		}
		return res, err
	}
	if _, err := deliver(nil); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("loopback regulator without allow_cidrs: %v", err)
	}
	if res, err := deliver([]string{"127.0.0.0/8"}); err != nil || res.Status != domain.SARAcknowledged || res.Reference != "FIU-9" {
		t.Fatalf("2xx: %+v %v", res, err)
	}
	if !strings.HasPrefix(got, f.ID+" ") || !strings.Contains(got, `"pdf":"JVBERi0xLjQK`) || !strings.Contains(got, `"filingId":"`+f.ID+`"`) {
		t.Errorf("regulator received %.200s", got)
	}
	status, answer = 422, `{"reason":"missing subject"}`
	if res, err := deliver([]string{"127.0.0.0/8"}); err != nil || res.Status != domain.SARRejected || res.Reason != "missing subject" {
		t.Fatalf("422: %+v %v", res, err)
	}
	status, answer = 503, "busy"
	if _, err := deliver([]string{"127.0.0.0/8"}); err == nil {
		t.Fatal("503 must be retried")
	}
	if got, _ := st.Cases.GetSAR(ctx, org, f.ID); !strings.Contains(got.LastError, "503") {
		t.Errorf("last error %q", got.LastError)
	}
}
