package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/orchestration"
)

// Workflow is a named workflow of an organisation; its definitions are its versions.
type Workflow struct {
	ID            string `gorm:"primaryKey;size:40"`
	OrgID         string `gorm:"size:40;not null;index;uniqueIndex:ux_workflows_org_slug,priority:1"`
	Slug          string `gorm:"size:100;not null;uniqueIndex:ux_workflows_org_slug,priority:2"`
	Name          string `gorm:"size:200;not null"`
	LatestVersion int    `gorm:"not null"`
	CreatedBy     string `gorm:"size:40"`
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// WorkflowVersion is one immutable definition of a workflow; versions count from 1.
type WorkflowVersion struct {
	WorkflowID string `gorm:"primaryKey;size:40"`
	Version    int    `gorm:"primaryKey;autoIncrement:false"`
	OrgID      string `gorm:"size:40;not null;index"`
	// Definition is the definition's JSON as it was validated (orchestration.Parse).
	Definition string `gorm:"type:text;not null"`
	CreatedBy  string `gorm:"size:40"`
	CreatedAt  time.Time
}

// Execution is one run of a workflow version; the Execution workflow keeps it in step
// with Temporal through its activities, so lists and filters never query Temporal.
type Execution struct {
	ID              string                        `gorm:"primaryKey;size:40"`
	OrgID           string                        `gorm:"size:40;not null;index:ix_executions_org_created,priority:1"`
	WorkflowID      string                        `gorm:"size:40;not null;index"`
	WorkflowSlug    string                        `gorm:"size:100;not null"`
	WorkflowVersion int                           `gorm:"not null"`
	Status          orchestration.ExecutionStatus `gorm:"size:16;not null;index"`
	Inputs          map[string]any                `gorm:"serializer:json;type:text"`
	Output          any                           `gorm:"serializer:json;type:text"`
	ExternalID      string                        `gorm:"size:200;index"`
	StartedBy       string                        `gorm:"size:40"`
	// RunID is the Temporal run of the execution (for links to the Temporal UI), set when it starts running.
	RunID        string    `gorm:"size:64"`
	FailedStepID string    `gorm:"size:40"`
	ErrorMessage string    `gorm:"type:text"`
	CancelReason string    `gorm:"size:1000"`
	CancelledBy  string    `gorm:"size:40"`
	CreatedAt    time.Time `gorm:"index:ix_executions_org_created,priority:2"`
	StartedAt    *time.Time
	CompletedAt  *time.Time
	UpdatedAt    time.Time
}

// Step is one node run of an execution (stp_ id); an execution runs a node at most once.
type Step struct {
	ID          string                   `gorm:"primaryKey;size:40"`
	OrgID       string                   `gorm:"size:40;not null;index"`
	ExecutionID string                   `gorm:"size:40;not null;uniqueIndex:ux_steps_execution_node,priority:1"`
	NodeID      string                   `gorm:"size:64;not null;uniqueIndex:ux_steps_execution_node,priority:2"`
	Kind        string                   `gorm:"size:40;not null"`
	Status      orchestration.StepStatus `gorm:"size:16;not null"`
	Attempts    int                      `gorm:"not null"`
	Output      any                      `gorm:"serializer:json;type:text"`
	Error       string                   `gorm:"type:text"`
	StartedAt   time.Time
	CompletedAt *time.Time
}

// Approval is a human_approval a run waits on (apr_ id); StepID is its step.
type Approval struct {
	ID          string                       `gorm:"primaryKey;size:40"`
	OrgID       string                       `gorm:"size:40;not null;index:ix_approvals_org_status,priority:1"`
	ExecutionID string                       `gorm:"size:40;not null;index"`
	StepID      string                       `gorm:"size:40;not null;uniqueIndex"`
	NodeID      string                       `gorm:"size:64;not null"`
	ActionLabel string                       `gorm:"size:1000;not null"`
	AssignTo    string                       `gorm:"size:200;not null;index"`
	Data        map[string]any               `gorm:"serializer:json;type:text"`
	Status      orchestration.ApprovalStatus `gorm:"size:16;not null;index:ix_approvals_org_status,priority:2"`
	// StartedBy is the user who started the execution: the one who may not resolve it.
	StartedBy string `gorm:"size:40"`
	DecidedBy string `gorm:"size:40"`
	Comment   string `gorm:"size:2000"`
	TimedOut  bool   `gorm:"not null;default:false"`
	ExpiresAt *time.Time
	DecidedAt *time.Time
	CreatedAt time.Time
}

// ErrSlugTaken is returned when an organisation already has a workflow with that slug.
var ErrSlugTaken = errors.New("slug already exists")

// CreateWorkflow stores a new workflow with its version 1. The definition must have been
// validated with orchestration.Parse.
func (s *Orchestration) CreateWorkflow(ctx context.Context, orgID, slug, name, definition, createdBy string) (*Workflow, *WorkflowVersion, error) {
	now := time.Now().UTC()
	w := &Workflow{ID: ids.New(ids.Workflow), OrgID: orgID, Slug: slug, Name: name, LatestVersion: 1, CreatedBy: createdBy, CreatedAt: now, UpdatedAt: now}
	v := &WorkflowVersion{WorkflowID: w.ID, Version: 1, OrgID: orgID, Definition: definition, CreatedBy: createdBy, CreatedAt: now}
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Create(w).Error; err != nil {
			if IsUniqueViolation(err) {
				return ErrSlugTaken
			}
			return err
		}
		return tx.Create(v).Error
	})
	if err != nil {
		return nil, nil, err
	}
	return w, v, nil
}

// GetWorkflow loads a workflow of the organisation by its id or its slug.
func (s *Orchestration) GetWorkflow(ctx context.Context, orgID, idOrSlug string) (*Workflow, error) {
	col := "slug"
	if strings.HasPrefix(idOrSlug, string(ids.Workflow)+"_") {
		col = "id"
	}
	var w Workflow
	if err := s.DB.WithContext(ctx).Where("org_id = ? AND "+col+" = ?", orgID, idOrSlug).Take(&w).Error; err != nil {
		return nil, NotFound(err)
	}
	return &w, nil
}

// AddWorkflowVersion stores the next version of a workflow of the organisation.
func (s *Orchestration) AddWorkflowVersion(ctx context.Context, orgID, workflowID, definition, createdBy string) (*WorkflowVersion, error) {
	var v *WorkflowVersion
	err := s.Tx(ctx, func(tx *gorm.DB) error {
		w, err := takeInOrg[Workflow](tx, orgID, workflowID)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		v = &WorkflowVersion{WorkflowID: w.ID, Version: w.LatestVersion + 1, OrgID: orgID, Definition: definition, CreatedBy: createdBy, CreatedAt: now}
		if err := tx.Create(v).Error; err != nil {
			return err // a concurrent new version took the number: the caller may retry
		}
		return tx.Model(&Workflow{}).Where("org_id = ? AND id = ? AND latest_version = ?", orgID, w.ID, w.LatestVersion).
			Updates(map[string]any{"latest_version": v.Version, "updated_at": now}).Error
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// GetWorkflowVersion loads one version of a workflow of the organisation.
func (s *Orchestration) GetWorkflowVersion(ctx context.Context, orgID, workflowID string, version int) (*WorkflowVersion, error) {
	var v WorkflowVersion
	err := s.DB.WithContext(ctx).Where("org_id = ? AND workflow_id = ? AND version = ?", orgID, workflowID, version).Take(&v).Error
	if err != nil {
		return nil, NotFound(err)
	}
	return &v, nil
}

// CreateExecution stores a new execution in state pending.
//
// A row with e's id already there is left as it is: a retried start (api.NewID) finds what its
// first try stored.
func (s *Orchestration) CreateExecution(ctx context.Context, e *Execution) error {
	e.Status = orchestration.ExecutionPending
	return s.DB.WithContext(ctx).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoNothing: true}).Create(e).Error
}

// GetExecution loads an execution of the organisation.
func (s *Orchestration) GetExecution(ctx context.Context, orgID, id string) (*Execution, error) {
	return takeInOrg[Execution](s.DB.WithContext(ctx), orgID, id)
}

// ExecutionSteps lists an execution's steps in the order they started.
func (s *Orchestration) ExecutionSteps(ctx context.Context, orgID, executionID string) ([]Step, error) {
	var steps []Step
	err := s.DB.WithContext(ctx).Where("org_id = ? AND execution_id = ?", orgID, executionID).
		Order("started_at, id").Find(&steps).Error
	return steps, err
}

// ExecutionApprovals lists an execution's approvals, oldest first.
func (s *Orchestration) ExecutionApprovals(ctx context.Context, orgID, executionID string) ([]Approval, error) {
	var out []Approval
	err := s.DB.WithContext(ctx).Where("org_id = ? AND execution_id = ?", orgID, executionID).
		Order("created_at, id").Find(&out).Error
	return out, err
}

// GetApproval loads an approval of the organisation by its apr_ id or by its step's stp_ id
// (the workflow.human_approval_pending event names the step).
func (s *Orchestration) GetApproval(ctx context.Context, orgID, id string) (*Approval, error) {
	col := "id"
	if strings.HasPrefix(id, string(ids.Step)+"_") {
		col = "step_id"
	}
	var a Approval
	if err := s.DB.WithContext(ctx).Where("org_id = ? AND "+col+" = ?", orgID, id).Take(&a).Error; err != nil {
		return nil, NotFound(err)
	}
	return &a, nil
}

// MarkExecutionRunning moves an execution from pending to running. An execution the API
// did not store first (a run started directly on Temporal) is stored as running. Running
// it again changes nothing.
func (s *Orchestration) MarkExecutionRunning(ctx context.Context, e *Execution, startedAt time.Time) error {
	startedAt = startedAt.UTC()
	return s.Tx(ctx, func(tx *gorm.DB) error {
		var cur Execution
		err := tx.Where("org_id = ? AND id = ?", e.OrgID, e.ID).Take(&cur).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			row := *e
			row.Status, row.StartedAt, row.CreatedAt = orchestration.ExecutionRunning, &startedAt, startedAt
			return tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&row).Error
		}
		if err != nil {
			return err
		}
		if cur.Status != orchestration.ExecutionPending {
			return nil
		}
		return tx.Model(&Execution{}).Where("org_id = ? AND id = ? AND status IN ?", e.OrgID, e.ID, orchestration.Executions.Sources(orchestration.ExecutionRunning)).
			Updates(map[string]any{"status": orchestration.ExecutionRunning, "started_at": startedAt, "run_id": e.RunID, "updated_at": time.Now().UTC()}).Error
	})
}

// ExecutionEnd is the terminal state of an execution.
type ExecutionEnd struct {
	Status       orchestration.ExecutionStatus
	Output       any
	FailedStepID string
	ErrorMessage string
	CancelReason string
	CancelledBy  string
	CompletedAt  time.Time
}

// FinishExecution records an execution's terminal state unless it already has one.
func (s *Orchestration) FinishExecution(ctx context.Context, orgID, id string, end ExecutionEnd) error {
	from := orchestration.Executions.Sources(end.Status)
	if !orchestration.Executions.Terminal(end.Status) || len(from) == 0 {
		return fmt.Errorf("store: %q is not a terminal execution state", end.Status)
	}
	completed := end.CompletedAt.UTC()
	row := Execution{
		Status: end.Status, Output: end.Output, FailedStepID: end.FailedStepID, ErrorMessage: end.ErrorMessage,
		CancelReason: end.CancelReason, CancelledBy: end.CancelledBy, CompletedAt: &completed, UpdatedAt: time.Now().UTC(),
	}
	return s.DB.WithContext(ctx).Model(&Execution{}).
		Where("org_id = ? AND id = ? AND status IN ?", orgID, id, from).
		Select("status", "output", "failed_step_id", "error_message", "cancel_reason", "cancelled_by", "completed_at", "updated_at").
		Updates(&row).Error
}

// SaveStep writes a step's state: it creates the step or updates it, but never changes a
// step that has finished, so a retried or late write cannot undo a final state.
func (s *Orchestration) SaveStep(ctx context.Context, st *Step) error {
	return s.Tx(ctx, func(tx *gorm.DB) error {
		var cur Step
		err := tx.Where("org_id = ? AND id = ?", st.OrgID, st.ID).Take(&cur).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return tx.Create(st).Error
		}
		if err != nil {
			return err
		}
		if orchestration.Steps.Terminal(cur.Status) {
			return nil
		}
		return tx.Model(&Step{}).Where("org_id = ? AND id = ?", st.OrgID, st.ID).
			Select("status", "attempts", "output", "error", "completed_at").Updates(st).Error
	})
}

// CreateApproval stores a pending approval; storing it again changes nothing.
func (s *Orchestration) CreateApproval(ctx context.Context, a *Approval) error {
	a.Status = orchestration.ApprovalPending
	return s.DB.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(a).Error
}

// ApprovalEnd is how an approval ended.
type ApprovalEnd struct {
	Status    orchestration.ApprovalStatus
	DecidedBy string
	Comment   string
	TimedOut  bool
	DecidedAt time.Time
}

// DecideApproval records the end of a pending approval; an approval already decided is
// left as it is.
func (s *Orchestration) DecideApproval(ctx context.Context, orgID, id string, end ApprovalEnd) error {
	from := orchestration.Approvals.Sources(end.Status)
	if !orchestration.Approvals.Terminal(end.Status) || len(from) == 0 {
		return fmt.Errorf("store: %q is not a final approval state", end.Status)
	}
	decided := end.DecidedAt.UTC()
	return s.DB.WithContext(ctx).Model(&Approval{}).
		Where("org_id = ? AND id = ? AND status IN ?", orgID, id, from).
		Updates(map[string]any{"status": end.Status, "decided_by": end.DecidedBy, "comment": end.Comment,
			"timed_out": end.TimedOut, "decided_at": decided}).Error
}

// ListWorkflows returns one page of the organisation's workflows, newest first; f.Q matches
// the slug and the name, from/to bound created_at.
func (s *Orchestration) ListWorkflows(ctx context.Context, orgID string, page Offset, f Filter) ([]Workflow, int64, error) {
	return ListOffset[Workflow](ctx, s.DB, page, "created_at DESC, id DESC",
		ForOrg(orgID), f.Scope(FilterColumns{Text: []string{"slug", "name"}}))
}

// ExecutionQuery selects executions: the common filters (status, from/to on created_at,
// externalId, q matching the id, the workflow slug and the externalId) and, when Workflow is
// set, one workflow by id or slug.
type ExecutionQuery struct {
	Filter   Filter
	Workflow string
}

func (q ExecutionQuery) scopes(orgID string) []Scope {
	scopes := []Scope{ForOrg(orgID), q.Filter.Scope(FilterColumns{
		Text: []string{"id", "workflow_slug", "external_id"}, Status: "status", ExternalID: "external_id",
	})}
	if q.Workflow != "" {
		scopes = append(scopes, Where("(workflow_id = ? OR workflow_slug = ?)", q.Workflow, q.Workflow))
	}
	return scopes
}

// ListExecutions returns one page of the organisation's executions, newest first (created_at,
// then id), and the cursor of the next page (nil at the end).
func (s *Orchestration) ListExecutions(ctx context.Context, orgID string, page CursorPage, q ExecutionQuery) ([]Execution, *Cursor, error) {
	page.TimeColumn = "created_at"
	return ListCursor(ctx, s.DB, page, func(e *Execution) Cursor { return Cursor{Time: e.CreatedAt, ID: e.ID} }, q.scopes(orgID)...)
}

// CountExecutions counts the executions q selects per status, ignoring q's status filter, so
// the counts of every status show next to a page filtered to one (summary=true).
func (s *Orchestration) CountExecutions(ctx context.Context, orgID string, q ExecutionQuery) (map[string]int64, error) {
	q.Filter.Status = nil
	return CountBy[Execution](ctx, s.DB, "status", q.scopes(orgID)...)
}

// DeletePendingExecution removes an execution that is still pending: the API stored it but
// could not start its workflow. An execution that has started is left alone.
func (s *Orchestration) DeletePendingExecution(ctx context.Context, orgID, id string) error {
	return s.DB.WithContext(ctx).Where("org_id = ? AND id = ? AND status = ?", orgID, id, orchestration.ExecutionPending).
		Delete(&Execution{}).Error
}

// ApprovalQuery selects approvals: status, from/to on created_at, and optionally the assignee
// (assignTo, exactly as the node names it) and the execution.
type ApprovalQuery struct {
	Filter      Filter
	AssignTo    string
	ExecutionID string
}

// ListApprovals returns one page of the organisation's approvals, newest first, and their total.
func (s *Orchestration) ListApprovals(ctx context.Context, orgID string, page Offset, q ApprovalQuery) ([]Approval, int64, error) {
	scopes := []Scope{ForOrg(orgID), q.Filter.Scope(FilterColumns{Text: []string{"action_label"}, Status: "status"})}
	if q.AssignTo != "" {
		scopes = append(scopes, Where("assign_to = ?", q.AssignTo))
	}
	if q.ExecutionID != "" {
		scopes = append(scopes, Where("execution_id = ?", q.ExecutionID))
	}
	return ListOffset[Approval](ctx, s.DB, page, "created_at DESC, id DESC", scopes...)
}
