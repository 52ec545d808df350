package screening

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	scr "github.com/svcplatform/svc/internal/screening"
	"github.com/svcplatform/svc/store"
	scrwf "github.com/svcplatform/svc/workflows/screening"
)

// Organisation list entries (screening product): every change stores a new list version
// with its delta and starts the monitoring rescreen of the organisation's customers against it.

// msgPlatformList answers a change to a platform list: only its configured source changes it.
const msgPlatformList = "a platform list changes only through its configured source"

// ownList loads a list the organisation manages itself with its version in service; it
// answers 404 or 409 and returns nil otherwise.
func (h *Handler) ownList(c *gin.Context) (*store.ScreeningList, []scr.Entity) {
	ctx := c.Request.Context()
	l, err := h.Store.Screening.GetList(ctx, api.PrincipalOf(c).OrgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return nil, nil
	}
	if l.OrgID == store.PlatformOrg || l.Kind != scr.KindOrganisation {
		api.Fail(c, http.StatusConflict, msgPlatformList)
		return nil, nil
	}
	v, err := h.Store.Screening.ListVersion(ctx, l.OrgID, l.ID, l.Version)
	if err != nil {
		api.Internal(c, err)
		return nil, nil
	}
	return l, v.Entities
}

// putEntry adds an entry to an organisation list or changes it (PUT /entries/{entryId}).
func (h *Handler) putEntry(c *gin.Context) {
	var req entryRequest
	if !api.BindJSON(c, &req) {
		return
	}
	if req.ID == "" {
		req.ID = c.Param("entryId")
	}
	fe := scr.FieldErrors{}
	if req.ID != c.Param("entryId") {
		fe.Add("id", "must equal the entry id of the path")
	}
	ent := req.entity(fe, "")
	if len(fe) > 0 {
		api.ValidationFailed(c, api.FieldErrors(fe))
		return
	}
	l, entities := h.ownList(c)
	if l == nil {
		return
	}
	i := slices.IndexFunc(entities, func(e scr.Entity) bool { return e.ID == ent.ID })
	next := slices.Clone(entities)
	if i >= 0 {
		next[i] = ent
	} else {
		if len(next) >= maxListEntries {
			api.ValidationFailed(c, api.FieldErrors{"id": {"the list already holds the most entries a list may hold"}})
			return
		}
		next = append(next, ent)
	}
	h.storeVersion(c, l, next)
}

// deleteEntry removes an entry from an organisation list; 404 for an unknown entry.
func (h *Handler) deleteEntry(c *gin.Context) {
	l, entities := h.ownList(c)
	if l == nil {
		return
	}
	next := slices.DeleteFunc(slices.Clone(entities), func(e scr.Entity) bool { return e.ID == c.Param("entryId") })
	if len(next) == len(entities) {
		api.NotFound(c)
		return
	}
	h.storeVersion(c, l, next)
}

// uploadList replaces an organisation list's entries with a CSV file (multipart field
// "file", the columns of scr.LoadOrgCSV); a file that does not parse is 400 naming the line.
func (h *Handler) uploadList(c *gin.Context) {
	// Another organisation's list is 404 whatever the body holds.
	l, _ := h.ownList(c)
	if l == nil {
		return
	}
	raw, ok := readFileField(c)
	if !ok {
		return
	}
	entities, err := scr.LoadOrgCSV(bytes.NewReader(raw))
	if err != nil {
		api.ValidationFailed(c, api.FieldErrors{"file": {err.Error()}})
		return
	}
	if len(entities) > maxListEntries {
		api.ValidationFailed(c, api.FieldErrors{"file": {"must hold at most 10000 entries"}})
		return
	}
	h.storeVersion(c, l, entities)
}

// readFileField reads the multipart part named "file"; 400 when there is none.
func readFileField(c *gin.Context) ([]byte, bool) {
	mr, err := c.Request.MultipartReader()
	if err != nil {
		api.ValidationFailed(c, api.FieldErrors{"body": {"must be multipart/form-data with a boundary"}})
		return nil, false
	}
	for parts := 0; parts < 8; parts++ {
		part, err := mr.NextPart()
		if err != nil {
			break
		}
		if part.FormName() != "file" {
			continue
		}
		b, err := io.ReadAll(part)
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			api.Fail(c, http.StatusRequestEntityTooLarge, api.MsgTooLarge)
			return nil, false
		case err != nil:
			api.ValidationFailed(c, api.FieldErrors{"file": {"could not be read"}})
			return nil, false
		}
		return b, true
	}
	api.ValidationFailed(c, api.FieldErrors{"file": {"is required"}})
	return nil, false
}

// storeVersion stores entities as the list's next version (unless unchanged), starts the
// rescreen of the organisation's monitored customers against its delta, and answers the list.
func (h *Handler) storeVersion(c *gin.Context, l *store.ScreeningList, entities []scr.Entity) {
	ctx := c.Request.Context()
	api.AuditResource(c, l.ID)
	v, changed, published, err := h.Store.Screening.NewVersion(ctx, l, entities, h.Now())
	if errors.Is(err, store.ErrListChangedMeanwhile) {
		api.Fail(c, http.StatusConflict, err.Error())
		return
	}
	if err != nil {
		api.Internal(c, err)
		return
	}
	if changed {
		h.listChanged(c, l, v, published)
	}
	api.OK(c, newListView(l))
}

// listChanged delivers a new organisation list version's screening.list_updated (written with
// the version) and starts its rescreen. Both run after the version is committed: a failed
// rescreen start is logged, and the next change rescreens again.
func (h *Handler) listChanged(c *gin.Context, l *store.ScreeningList, v *store.ScreeningListVersion, published []*store.Published) {
	h.screener.Deliver(c.Request.Context(), published)
	if h.Temporal == nil {
		h.Logger.Warn("screening rescreen not started: no Temporal client", "list", l.ID, "version", l.Version)
		return
	}
	in := scrwf.RescreenInput{ListID: l.ID, ListOrgID: l.OrgID, Version: l.Version, Batch: h.rescreenBatch()}
	tctx, cancel := api.TemporalContext(c)
	defer cancel()
	if _, err := h.Temporal.ExecuteWorkflow(tctx, scrwf.RescreenStartOptions(in), scrwf.RescreenName, in); err != nil {
		h.Logger.Error("screening rescreen not started", "list", l.ID, "version", l.Version, "error", err)
	}
}

func (h *Handler) rescreenBatch() int {
	if h.Config != nil && h.Config.Screening.RescreenBatch > 0 {
		return h.Config.Screening.RescreenBatch
	}
	return 500
}
