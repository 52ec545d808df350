// Package orchestration holds the orchestration product's activities: the Execution
// workflow's bookkeeping and http nodes, and the ping. Activities are idempotent, because
// Temporal may run one twice.
package orchestration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/activities"
	autoacts "github.com/svcplatform/svc/activities/automation"
	"github.com/svcplatform/svc/internal/buildinfo"
	"github.com/svcplatform/svc/internal/netguard"
	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	orchwf "github.com/svcplatform/svc/workflows/orchestration"
)

// DefaultMaxResponseBytes caps the body an http node reads: its output travels through
// Temporal's history, which warns at 256 KiB per payload.
const DefaultMaxResponseBytes = 256 << 10

// Activities implements the activities of the Execution workflow. Each can run twice
// (Temporal retries): store writes are upserts keyed by the ids the workflow derived and
// never undo a final state, and events keep the id the workflow derived.
type Activities struct {
	// Store holds workflows, executions, steps and approvals.
	Store *store.Store
	// Publisher publishes the events each bookkeeping activity carries.
	Publisher activities.Publisher
	// HTTP sends http nodes' requests; build it with netguard (SSRF guard, no redirects).
	HTTP *http.Client
	// MaxResponseBytes caps an http node's response body (DefaultMaxResponseBytes when 0).
	MaxResponseBytes int64
	// AI runs ai nodes' model steps (the automation product); nil fails them as "ai not configured".
	AI *autoacts.Activities
}

// MarkRunning moves the execution from pending to running, noting its Temporal run id, and
// publishes workflow.execution.started.
func (o *Activities) MarkRunning(ctx context.Context, in orchwf.MarkRunningInput) error {
	e := in.Execution
	row := &store.Execution{
		ID: e.ExecutionID, OrgID: e.OrgID, WorkflowID: e.WorkflowID, WorkflowSlug: e.WorkflowSlug, WorkflowVersion: e.WorkflowVersion,
		Inputs: e.Inputs, ExternalID: e.ExternalID, StartedBy: e.StartedBy,
	}
	if activity.IsActivity(ctx) {
		row.RunID = activity.GetInfo(ctx).WorkflowExecution.RunID
	}
	if err := o.Store.Orchestration.MarkExecutionRunning(ctx, row, in.StartedAt); err != nil {
		return fmt.Errorf("mark %s running: %w", e.ExecutionID, err)
	}
	return o.publish(ctx, &in.Event)
}

// LoadDefinition returns the JSON of the definition version an execution runs.
func (o *Activities) LoadDefinition(ctx context.Context, in orchwf.LoadDefinitionInput) (json.RawMessage, error) {
	v, err := o.Store.Orchestration.GetWorkflowVersion(ctx, in.OrgID, in.WorkflowID, in.Version)
	if errors.Is(err, store.ErrNotFound) {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("workflow %s version %d not found", in.WorkflowID, in.Version), orchwf.ErrTypeDefinitionNotFound, nil)
	}
	if err != nil {
		return nil, err
	}
	return json.RawMessage(v.Definition), nil
}

// RecordStep writes a step's state and publishes its event, if it carries one.
func (o *Activities) RecordStep(ctx context.Context, rec orchwf.StepRecord) error {
	st := &store.Step{
		ID: rec.StepID, OrgID: rec.OrgID, ExecutionID: rec.ExecutionID, NodeID: rec.NodeID, Kind: rec.Kind, Status: rec.Status,
		Attempts: rec.Attempts, Output: rec.Output, Error: rec.Error, StartedAt: rec.StartedAt.UTC(), CompletedAt: rec.CompletedAt,
	}
	if err := o.Store.Orchestration.SaveStep(ctx, st); err != nil {
		return fmt.Errorf("record step %s: %w", rec.StepID, err)
	}
	return o.publish(ctx, rec.Event)
}

// RecordApproval stores a pending approval and publishes workflow.human_approval_pending.
func (o *Activities) RecordApproval(ctx context.Context, rec orchwf.ApprovalRecord) error {
	a := &store.Approval{
		ID: rec.ApprovalID, OrgID: rec.OrgID, ExecutionID: rec.ExecutionID, StepID: rec.StepID, NodeID: rec.NodeID,
		ActionLabel: rec.ActionLabel, AssignTo: rec.AssignTo, Data: rec.Data, StartedBy: rec.StartedBy,
		ExpiresAt: rec.ExpiresAt, CreatedAt: rec.CreatedAt.UTC(),
	}
	if err := o.Store.Orchestration.CreateApproval(ctx, a); err != nil {
		return fmt.Errorf("record approval %s: %w", rec.ApprovalID, err)
	}
	return o.publish(ctx, &rec.Event)
}

// ResolveApproval records how a pending approval ended.
func (o *Activities) ResolveApproval(ctx context.Context, d orchwf.ApprovalDecision) error {
	end := store.ApprovalEnd{Status: d.Status, DecidedBy: d.DecidedBy, Comment: d.Comment, TimedOut: d.TimedOut, DecidedAt: d.DecidedAt}
	if err := o.Store.Orchestration.DecideApproval(ctx, d.OrgID, d.ApprovalID, end); err != nil {
		return fmt.Errorf("resolve approval %s: %w", d.ApprovalID, err)
	}
	return nil
}

// FinishExecution records the execution's terminal state and publishes its terminal event.
func (o *Activities) FinishExecution(ctx context.Context, in orchwf.FinishInput) error {
	end := store.ExecutionEnd{
		Status: in.Status, Output: in.Output, FailedStepID: in.FailedStepID, ErrorMessage: in.ErrorMessage,
		CancelReason: in.Reason, CancelledBy: in.ActorUserID, CompletedAt: in.CompletedAt,
	}
	if err := o.Store.Orchestration.FinishExecution(ctx, in.OrgID, in.ExecutionID, end); err != nil {
		return fmt.Errorf("finish %s: %w", in.ExecutionID, err)
	}
	return o.publish(ctx, &in.Event)
}

func (o *Activities) publish(ctx context.Context, ev *workflows.PublishEventInput) error {
	if ev == nil {
		return nil
	}
	return activities.Publish(ctx, o.Publisher, "orchestration", *ev)
}

// keptHeaders are the response headers an http node's output carries.
var keptHeaders = []string{"Content-Type", "Location", "ETag", "Last-Modified", "Retry-After", "X-Request-Id"}

// RunHTTPNode sends one http node request through the guarded client within the node's
// timeout and returns the status, a few headers and the body (parsed when it is JSON).
// A 2xx answer succeeds. Errors carry an HTTPFailure detail (attempt, status) and one of
// the types the workflow's retry policy reads: HTTPStatus (408, 425, 429, 5xx) and
// HTTPTransport (no answer) are retried, HTTPStatusFinal (other statuses) and HTTPInvalid
// (a request that cannot be made or that the SSRF guard refuses, a body too large) are not. Messages name the method
// and the URL without its query; header values and bodies are never logged.
func (o *Activities) RunHTTPNode(ctx context.Context, req orch.HTTPRequest) (orchwf.HTTPResult, error) {
	attempt := int(activity.GetInfo(ctx).Attempt)
	target := req.Method + " " + orch.RedactURL(req.URL)
	fail := func(errType string, status int, msg string) error {
		nonRetryable := errType == orchwf.ErrTypeHTTPStatusFinal || errType == orchwf.ErrTypeHTTPInvalid
		return temporal.NewApplicationErrorWithOptions(target+": "+msg, errType, temporal.ApplicationErrorOptions{
			NonRetryable: nonRetryable, Details: []any{orchwf.HTTPFailure{Attempt: attempt, Status: status}},
		})
	}
	if err := orch.CheckURL(req.URL); err != nil {
		return orchwf.HTTPResult{}, fail(orchwf.ErrTypeHTTPInvalid, 0, err.Error())
	}
	body, contentType, err := requestBody(req.Body)
	if err != nil {
		return orchwf.HTTPResult{}, fail(orchwf.ErrTypeHTTPInvalid, 0, err.Error())
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = orch.DefaultHTTPTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return orchwf.HTTPResult{}, fail(orchwf.ErrTypeHTTPInvalid, 0, "cannot build the request: "+transportMessage(err))
	}
	for name, value := range req.Headers {
		hreq.Header.Set(name, value)
	}
	if contentType != "" && hreq.Header.Get("Content-Type") == "" {
		hreq.Header.Set("Content-Type", contentType)
	}
	if hreq.Header.Get("User-Agent") == "" {
		hreq.Header.Set("User-Agent", buildinfo.UserAgent("orchestration"))
	}
	resp, err := o.HTTP.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return orchwf.HTTPResult{}, fail(orchwf.ErrTypeHTTPTransport, 0, fmt.Sprintf("no answer within %s", timeout))
		}
		if errors.Is(err, netguard.ErrForbiddenAddress) || errors.Is(err, netguard.ErrInsecureScheme) {
			return orchwf.HTTPResult{}, fail(orchwf.ErrTypeHTTPInvalid, 0, transportMessage(err))
		}
		return orchwf.HTTPResult{}, fail(orchwf.ErrTypeHTTPTransport, 0, transportMessage(err))
	}
	defer resp.Body.Close()
	limit := o.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return orchwf.HTTPResult{}, fail(orchwf.ErrTypeHTTPTransport, resp.StatusCode, "reading the response: "+transportMessage(err))
	}
	if int64(len(raw)) > limit {
		return orchwf.HTTPResult{}, fail(orchwf.ErrTypeHTTPInvalid, resp.StatusCode, fmt.Sprintf("response body is larger than %d bytes", limit))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		errType := orchwf.ErrTypeHTTPStatusFinal
		switch c := resp.StatusCode; {
		case c == http.StatusRequestTimeout, c == http.StatusTooEarly, c == http.StatusTooManyRequests, c >= 500:
			errType = orchwf.ErrTypeHTTPStatus
		}
		return orchwf.HTTPResult{}, fail(errType, resp.StatusCode, "status "+resp.Status)
	}
	out := orch.HTTPResponse{Status: resp.StatusCode, Headers: map[string]string{}, Body: responseBody(resp.Header.Get("Content-Type"), raw)}
	for _, name := range keptHeaders {
		if v := resp.Header.Get(name); v != "" {
			out.Headers[strings.ToLower(name)] = v
		}
	}
	return orchwf.HTTPResult{Response: out, Attempt: attempt}, nil
}

// requestBody encodes a node's body: a string as text, anything else as JSON.
func requestBody(v any) (io.Reader, string, error) {
	switch b := v.(type) {
	case nil:
		return nil, "", nil
	case string:
		return strings.NewReader(b), "text/plain; charset=utf-8", nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, "", fmt.Errorf("body is not JSON: %v", err)
	}
	return bytes.NewReader(raw), "application/json", nil
}

// responseBody is the parsed JSON of a JSON answer, otherwise the text (nil when empty).
func responseBody(contentType string, raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(contentType); err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			return v
		}
	}
	return strings.ToValidUTF8(string(raw), "\uFFFD")
}

// transportMessage is a client error without the URL the http package puts in it (its
// query may hold credentials).
func transportMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
