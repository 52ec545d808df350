// Package cases holds the cases product's activities: the store writes of the Case workflow,
// the gathering of alerts, and the rendering and delivery of SAR filings.
package cases

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/config"
	domain "github.com/svcplatform/svc/internal/cases"
	"github.com/svcplatform/svc/internal/netguard"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	casewf "github.com/svcplatform/svc/workflows/cases"
)

// Activities are the cases product's side effects, each idempotent.
type Activities struct {
	Store *store.Store
	// Temporal starts the workflows of cases the gathering opened.
	Temporal client.Client
	// Publisher publishes the SAR answer events (the webhooks product's activities).
	Publisher activities.Publisher
	// HTTP reaches the regulator through the SSRF guard; RegulatorURL is where.
	HTTP         *http.Client
	RegulatorURL string
	// Attempts bounds a SAR delivery's tries (config cases.delivery_attempts).
	Attempts int
	Logger   *slog.Logger
}

// New builds the activities from config cases.*: the regulator's client goes through the
// SSRF guard (cases.regulator_allow_cidrs; https only in the live environment).
func New(cfg *config.Config, st *store.Store, c client.Client, pub activities.Publisher, logger *slog.Logger) (*Activities, error) {
	g, err := netguard.New(netguard.Config{AllowCIDRs: cfg.Cases.RegulatorAllowCIDRs, RequireHTTPS: cfg.Environment == "live", Timeout: 30 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("config: cases.regulator_allow_cidrs: %w", err)
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Activities{Store: st, Temporal: c, Publisher: pub, HTTP: g.Client(), RegulatorURL: cfg.Cases.RegulatorURL,
		Attempts: cfg.Cases.DeliveryAttempts, Logger: logger}, nil
}

// CaseStarted records that a case's workflow runs.
func (a *Activities) CaseStarted(ctx context.Context, orgID, caseID string) error {
	return a.Store.Cases.MarkCaseStarted(ctx, orgID, caseID)
}

// ApplyChange records an action the Case workflow applied.
func (a *Activities) ApplyChange(ctx context.Context, ch casewf.Change) error {
	return a.Store.Cases.ApplyCaseChange(ctx, store.CaseChange{
		OrgID: ch.OrgID, CaseID: ch.CaseID, Key: ch.Key, Action: ch.Action, To: ch.To, ActorID: ch.ActorID, APIKeyID: ch.KeyID,
		AssigneeID: ch.AssigneeID, Title: ch.Title, Priority: ch.Priority, DueAt: ch.DueAt, Outcome: ch.Outcome, Rationale: ch.Rationale,
		ProposedBy: ch.Proposer, Comment: ch.Comment, At: ch.At,
	})
}

// RecordOverdue adds a missed due date to a case's timeline.
func (a *Activities) RecordOverdue(ctx context.Context, in casewf.OverdueInput) error {
	return a.Store.Cases.RecordOverdue(ctx, in.OrgID, in.CaseID, in.DueAt, in.At)
}

// startGrace is how long after its store write a case or a submission may wait for the
// start its API request makes before the gathering starts it instead.
const startGrace = 30 * time.Second

// Gather gathers one page of the alerts no case holds, then starts the workflow of every case
// (and SAR submission) that has none yet.
func (a *Activities) Gather(ctx context.Context, in casewf.GatherInput) (casewf.GatherResult, error) {
	n, opened, err := a.Store.Cases.GatherAlerts(ctx, store.Gathering{Window: in.Window, DueIn: in.DueIn, Limit: in.Limit})
	res := casewf.GatherResult{Gathered: n, Opened: len(opened)}
	if err != nil {
		return res, err
	}
	unstarted, err := a.Store.Cases.UnstartedCases(ctx, in.Limit)
	if err != nil {
		return res, err
	}
	for _, c := range unstarted {
		if err := a.StartCase(ctx, &c); err != nil {
			return res, err
		}
		res.Started++
	}
	filings, err := a.Store.Cases.UnstartedSARs(ctx, in.Limit, startGrace)
	if err != nil {
		return res, err
	}
	for _, f := range filings {
		if err := StartSubmission(ctx, a.Temporal, &f, a.Attempts); err != nil {
			return res, err
		}
		res.Started++
	}
	return res, nil
}

// StartCase starts a stored case's workflow (a second start finds the running one).
func (a *Activities) StartCase(ctx context.Context, c *store.Case) error {
	alerts, err := a.Store.Cases.CaseAlertIDs(ctx, c.OrgID, c.ID)
	if err != nil {
		return err
	}
	in := CaseInputOf(c, alerts)
	_, err = a.Temporal.ExecuteWorkflow(ctx, casewf.CaseStartOptions(in), casewf.CaseName, in)
	if err != nil && !workflows.AlreadyStarted(err) {
		return err
	}
	return a.Store.Cases.MarkCaseStarted(ctx, c.OrgID, c.ID)
}

// CaseInputOf is the input that starts the workflow of a stored case: its state as the store
// holds it (the API's update-with-start uses it too, so an action on a case whose workflow
// never started starts it).
func CaseInputOf(c *store.Case, alertIDs []string) casewf.CaseInput {
	in := casewf.CaseInput{OrgID: c.OrgID, CaseID: c.ID, Title: c.Title, CustomerID: c.CustomerID, Priority: c.Priority,
		CreatedBy: c.CreatedBy, AlertIDs: alertIDs, State: domain.State(c.Status), AssigneeID: c.AssigneeID,
		ProposedBy: c.ProposedBy, ProposedOutcome: c.ProposedOutcome, ProposedRationale: c.ProposedRationale,
		Announced: c.Started} // a case whose run started once has had its case.created
	if c.DueAt != nil {
		in.DueAt = c.DueAt.UTC()
	}
	return in
}

// StartSubmission starts a submitted filing's delivery workflow (once: a second start finds
// the running or finished one).
func StartSubmission(ctx context.Context, c client.Client, f *store.SARFiling, attempts int) error {
	in := casewf.SARInput{OrgID: f.OrgID, FilingID: f.ID, CaseID: f.CaseID, FiledByID: f.FiledByID, SubmittedByID: f.SubmittedByID, Attempts: attempts}
	_, err := c.ExecuteWorkflow(ctx, casewf.SARStartOptions(in), casewf.SARSubmissionName, in)
	if err != nil && !workflows.AlreadyStarted(err) {
		return err
	}
	return nil
}

// errNoFiling is a filing that vanished (its organisation was deleted): nothing to deliver.
var errNoFiling = errors.New("SAR filing not found")
