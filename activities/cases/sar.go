package cases

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/activities"
	domain "github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/store"
	casewf "github.com/svcplatform/svc/workflows/cases"
)

// RenderSAR renders a submitted filing as the regulator receives it (JSON) and for the record
// (PDF), with the case's alerts and evidence, and stores both on the filing.
func (a *Activities) RenderSAR(ctx context.Context, in casewf.SARInput) error {
	f, err := a.Store.Cases.GetSAR(ctx, in.OrgID, in.FilingID)
	if err != nil {
		return temporal.NewNonRetryableApplicationError(errNoFiling.Error(), "NotFound", err)
	}
	d, err := a.Store.Cases.CaseDossier(ctx, in.OrgID, f.CaseID)
	if err != nil {
		return err
	}
	r := ReportOf(f, d)
	doc, err := domain.RenderJSON(r)
	if err != nil {
		return err
	}
	return a.Store.Cases.SARRendered(ctx, in.OrgID, in.FilingID, string(doc), domain.RenderPDF(r))
}

// ReportOf is a filing with its case's alerts and evidence, as the regulator receives it.
func ReportOf(f *store.SARFiling, d *store.CaseDetail) domain.Report {
	r := domain.Report{FilingID: f.ID, OrgID: f.OrgID, CaseID: f.CaseID, Subjects: f.Subjects, ActivityFrom: f.ActivityFrom,
		ActivityTo: f.ActivityTo, Amount: f.Amount, Currency: f.Currency, Narrative: f.Narrative, FiledBy: f.FiledByID,
		SubmittedBy: f.SubmittedByID}
	if f.SubmittedAt != nil {
		r.SubmittedAt = f.SubmittedAt.UTC().Format(time.RFC3339)
	}
	for _, al := range d.Alerts {
		r.Alerts = append(r.Alerts, domain.ReportRecord{Kind: al.Source, ID: al.ID, Summary: al.Summary})
	}
	for _, e := range d.Evidence {
		r.Evidence = append(r.Evidence, domain.ReportRecord{Kind: e.Kind, ID: e.RefID, Summary: e.Note})
	}
	return r
}

// deliveryBody is what the regulator endpoint receives.
type deliveryBody struct {
	Filing json.RawMessage `json:"filing"`
	PDF    string          `json:"pdf"`
}

// regulatorAnswer is what a regulator answers with a 2xx (or a 4xx rejection).
type regulatorAnswer struct {
	Reference string `json:"reference"`
	Reason    string `json:"reason"`
}

// DeliverSAR posts the rendered filing to the regulator endpoint through the SSRF guard, with
// the filing id as Idempotency-Key so a retried delivery is one filing. A 2xx acknowledges it
// (with the answer's reference), a 4xx other than 408 and 429 rejects it (with the answer's
// reason); anything else is retried by the workflow, the try's error kept on the filing.
func (a *Activities) DeliverSAR(ctx context.Context, in casewf.SARInput) (casewf.DeliveryResult, error) {
	attempt := int(activity.GetInfo(ctx).Attempt)
	fail := func(err error) (casewf.DeliveryResult, error) {
		if rerr := a.Store.Cases.SARDeliveryFailed(ctx, in.OrgID, in.FilingID, attempt, err.Error()); rerr != nil {
			a.Logger.Error("record SAR delivery failure", "filingId", in.FilingID, "error", rerr)
		}
		return casewf.DeliveryResult{}, err
	}
	if a.RegulatorURL == "" {
		return fail(temporal.NewNonRetryableApplicationError("regulator endpoint not configured (cases.regulator_url)", casewf.ErrTypeNoRegulator, nil))
	}
	f, err := a.Store.Cases.GetSAR(ctx, in.OrgID, in.FilingID)
	if err != nil {
		return casewf.DeliveryResult{}, err
	}
	body, err := json.Marshal(deliveryBody{Filing: json.RawMessage(f.Document), PDF: base64.StdEncoding.EncodeToString(f.PDF)})
	if err != nil {
		return casewf.DeliveryResult{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.RegulatorURL, bytes.NewReader(body))
	if err != nil {
		return fail(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", f.ID)
	res, err := a.HTTP.Do(req)
	if err != nil {
		return fail(fmt.Errorf("regulator: %w", err))
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	var ans regulatorAnswer
	_ = json.Unmarshal(raw, &ans) // an answer that is not JSON keeps its text as the reason
	switch {
	case res.StatusCode >= 200 && res.StatusCode < 300:
		return casewf.DeliveryResult{Status: domain.SARAcknowledged, Reference: ans.Reference, Attempt: attempt}, nil
	case res.StatusCode >= 400 && res.StatusCode < 500 && res.StatusCode != http.StatusRequestTimeout && res.StatusCode != http.StatusTooManyRequests:
		reason := ans.Reason
		if reason == "" {
			reason = strings.TrimSpace(string(raw))
		}
		if reason == "" {
			reason = res.Status
		}
		return casewf.DeliveryResult{Status: domain.SARRejected, Reason: reason, Attempt: attempt}, nil
	}
	return fail(fmt.Errorf("regulator answered %s", res.Status))
}

// RecordAnswer stores the regulator's answer on the filing and publishes its event.
func (a *Activities) RecordAnswer(ctx context.Context, in casewf.AnswerInput) error {
	r := in.Result
	if err := a.Store.Cases.SARAnswered(ctx, in.OrgID, in.FilingID, r.Status, r.Reference, r.Reason, r.Attempt, in.At); err != nil {
		return err
	}
	return activities.Publish(ctx, a.Publisher, "cases", in.Event)
}
