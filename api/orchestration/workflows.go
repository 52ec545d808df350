package orchestration

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"

	"github.com/svcplatform/svc/api"

	"github.com/gin-gonic/gin"

	orch "github.com/svcplatform/svc/internal/orchestration"
	"github.com/svcplatform/svc/store"
)

// Workflow definitions (orchestration product, ARCHITECTURE 3): a workflow has a slug unique in its
// organisation and immutable, numbered versions of its definition; an execution runs the
// version it started with. Definitions are validated by orch.Parse when saved.

// slugPattern keeps slugs URL-safe and apart from wkf_ ids (no underscore).
var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,99}$`)

// workflowView is a workflow as the API shows it.
type workflowView struct {
	ID            string  `json:"id"`
	Slug          string  `json:"slug"`
	Name          string  `json:"name"`
	LatestVersion int     `json:"latestVersion"`
	CreatedBy     *string `json:"createdBy"`
	CreatedAt     string  `json:"createdAt"`
	UpdatedAt     string  `json:"updatedAt"`
}

// workflowDetailView is a workflow with the definition of its latest version.
type workflowDetailView struct {
	workflowView
	Definition json.RawMessage `json:"definition"`
}

// workflowVersionView is one immutable version of a workflow.
type workflowVersionView struct {
	WorkflowID string          `json:"workflowId"`
	Version    int             `json:"version"`
	Definition json.RawMessage `json:"definition"`
	CreatedBy  *string         `json:"createdBy"`
	CreatedAt  string          `json:"createdAt"`
}

func newWorkflowView(w *store.Workflow) workflowView {
	return workflowView{ID: w.ID, Slug: w.Slug, Name: w.Name, LatestVersion: w.LatestVersion, CreatedBy: api.Nullable(w.CreatedBy),
		CreatedAt: api.Timestamp(w.CreatedAt), UpdatedAt: api.Timestamp(w.UpdatedAt)}
}

func newWorkflowVersionView(v *store.WorkflowVersion) workflowVersionView {
	return workflowVersionView{WorkflowID: v.WorkflowID, Version: v.Version, Definition: json.RawMessage(v.Definition),
		CreatedBy: api.Nullable(v.CreatedBy), CreatedAt: api.Timestamp(v.CreatedAt)}
}

// createWorkflowRequest is the body of POST /api/workflows.
type createWorkflowRequest struct {
	Slug       string          `json:"slug"`
	Name       string          `json:"name"`
	Definition json.RawMessage `json:"definition"`
	// ExternalID is handled by the idempotency middleware.
	ExternalID string `json:"externalId"`
}

// addVersionRequest is the body of POST /api/workflows/:id/versions.
type addVersionRequest struct {
	Definition json.RawMessage `json:"definition"`
	ExternalID string          `json:"externalId"`
}

// checkDefinition validates a definition into fe (keys like definition.nodes[2].config.url)
// and returns its compact JSON, which is what the store keeps.
func checkDefinition(fe api.FieldErrors, raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		fe.Add("definition", "is required")
		return ""
	}
	if _, err := orch.Parse(raw); err != nil {
		var ve *orch.ValidationError
		if !errors.As(err, &ve) {
			fe.Add("definition", err.Error())
			return ""
		}
		for path, msgs := range ve.Fields {
			fe[path] = append(fe[path], msgs...)
		}
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil { // Parse accepted it, so it is JSON
		fe.Add("definition", "must be JSON")
	}
	return b.String()
}

// createWorkflow saves a workflow with its first version. A slug the organisation already
// uses is a validation error on slug (400), like any other field that needs changing.
func (h *Handler) createWorkflow(c *gin.Context) {
	var req createWorkflowRequest
	if !api.BindJSON(c, &req) {
		return
	}
	fe := api.FieldErrors{}
	if !slugPattern.MatchString(req.Slug) {
		fe.Add("slug", "must be 1 to 100 lowercase letters, digits and hyphens, starting with a letter or digit")
	}
	if req.Name == "" {
		fe.Add("name", "is required")
	} else if len(req.Name) > 200 {
		fe.Add("name", "must be at most 200 characters")
	}
	def := checkDefinition(fe, req.Definition)
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	p := api.PrincipalOf(c)
	w, v, err := h.Store.Orchestration.CreateWorkflow(c.Request.Context(), p.OrgID, req.Slug, req.Name, def, p.UserID)
	if errors.Is(err, store.ErrSlugTaken) {
		api.ValidationFailed(c, api.FieldErrors{"slug": {"is already used by another workflow of the organisation"}})
		return
	}
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.Created(c, workflowDetailView{workflowView: newWorkflowView(w), Definition: json.RawMessage(v.Definition)})
}

// listWorkflows pages through the organisation's workflows, newest first; q matches slug and name.
func (h *Handler) listWorkflows(c *gin.Context) {
	q, ok := api.ParseList(c, api.ListSpec{MaxLimit: 100, Filters: []string{api.FilterQ, api.FilterFrom, api.FilterTo}})
	if !ok {
		return
	}
	rows, total, err := h.Store.Orchestration.ListWorkflows(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Page, q.Filter)
	if api.Loaded(c, err) {
		api.ListRows(c, rows, total, q, newWorkflowView, nil)
	}
}

// loadWorkflow loads the path's workflow (by id or slug) of the caller's organisation,
// answering 404 when there is none.
func (h *Handler) loadWorkflow(c *gin.Context) (*store.Workflow, bool) {
	w, err := h.Store.Orchestration.GetWorkflow(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	return w, api.Loaded(c, err)
}

// getWorkflow answers a workflow with its latest definition.
func (h *Handler) getWorkflow(c *gin.Context) {
	w, ok := h.loadWorkflow(c)
	if !ok {
		return
	}
	v, err := h.Store.Orchestration.GetWorkflowVersion(c.Request.Context(), w.OrgID, w.ID, w.LatestVersion)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.OK(c, workflowDetailView{workflowView: newWorkflowView(w), Definition: json.RawMessage(v.Definition)})
}

// addWorkflowVersion saves the next version of a workflow's definition.
func (h *Handler) addWorkflowVersion(c *gin.Context) {
	var req addVersionRequest
	if !api.BindJSON(c, &req) {
		return
	}
	w, ok := h.loadWorkflow(c)
	if !ok {
		return
	}
	fe := api.FieldErrors{}
	def := checkDefinition(fe, req.Definition)
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return
	}
	var v *store.WorkflowVersion
	var err error
	for range 3 { // two versions saved at once: the second takes the next number
		if v, err = h.Store.Orchestration.AddWorkflowVersion(c.Request.Context(), w.OrgID, w.ID, def, api.PrincipalOf(c).UserID); !store.IsUniqueViolation(err) {
			break
		}
	}
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.Created(c, newWorkflowVersionView(v))
}

// getWorkflowVersion answers one version of a workflow.
func (h *Handler) getWorkflowVersion(c *gin.Context) {
	w, ok := h.loadWorkflow(c)
	if !ok {
		return
	}
	n, err := strconv.Atoi(c.Param("version"))
	if err != nil || n < 1 {
		api.ValidationFailed(c, api.FieldErrors{"version": {"must be an integer from 1"}})
		return
	}
	v, err := h.Store.Orchestration.GetWorkflowVersion(c.Request.Context(), w.OrgID, w.ID, n)
	if api.Loaded(c, err) {
		api.OK(c, newWorkflowVersionView(v))
	}
}
