package identity

import (
	"bufio"
	"errors"
	"io"
	"mime/multipart"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/blobs"
	docintel "github.com/svcplatform/svc/internal/documents"
	idv "github.com/svcplatform/svc/internal/identity"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	idvwf "github.com/svcplatform/svc/workflows/identity"
)

// attemptView is one attempt: its checks and outcome, and what the documents engine read
// (personal data of the organisation's customer; null once the retention has deleted it).
type attemptView struct {
	ID             string            `json:"id"`
	VerificationID string            `json:"verificationId"`
	CustomerID     *string           `json:"customerId"`
	Number         int               `json:"number"`
	Status         string            `json:"status"`
	Outcome        *string           `json:"outcome"`
	Reasons        []string          `json:"reasons"`
	Checks         []idv.CheckResult `json:"checks"`
	Document       *idv.Document     `json:"document"`
	HasBack        bool              `json:"hasBack"`
	CreatedAt      string            `json:"createdAt"`
	CompletedAt    *string           `json:"completedAt"`
	PurgedAt       *string           `json:"purgedAt"`
}

func newAttemptView(a *store.IdentityAttempt) attemptView {
	return attemptView{
		ID: a.ID, VerificationID: a.VerificationID, CustomerID: api.Nullable(a.CustomerID), Number: a.Number, Status: a.Status,
		Outcome: api.Nullable(a.Outcome), Reasons: api.NonNil(a.Reasons), Checks: api.NonNil(a.Checks), Document: a.Document,
		HasBack: a.BackKey != "", CreatedAt: api.Timestamp(a.CreatedAt), CompletedAt: api.TimestampPtr(a.CompletedAt),
		PurgedAt: api.TimestampPtr(a.PurgedAt),
	}
}

// submitAttempt answers POST /api/identity/verifications/{id}/attempts (multipart: front,
// optional back; PNG, JPEG, TIFF or PDF): the images are stored, the attempt recorded and the
// verification moved to processing in one conditional write (409 unless it waits for input,
// 422 when no attempt is left), then its workflow told: 202 with the attempt's id.
func (h *Handler) submitAttempt(c *gin.Context) {
	if h.Blobs == nil {
		api.Logger(c).Error("blob store unavailable", "error", h.blobsErr)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	v, ok := h.loadVerification(c)
	if !ok {
		return
	}
	if !idv.Status(v.Status).AwaitsInput() {
		api.StateConflict(c, v.Status, string(idv.StatusProcessing))
		return
	}
	images, ok := h.readImages(c)
	if !ok {
		return
	}
	if !api.TemporalAvailable(c, h.Temporal) {
		return
	}
	a := &store.IdentityAttempt{ID: ids.New(ids.IdentityAttempt), OrgID: v.OrgID, VerificationID: v.ID,
		FrontKey: images["front"], BackKey: images["back"]}
	err := h.Store.Identity.SubmitAttempt(c.Request.Context(), a, h.Now())
	var se *store.StateError
	switch {
	case errors.As(err, &se):
		api.StateConflict(c, se.Status, string(idv.StatusProcessing))
		return
	case errors.Is(err, store.ErrNoAttemptsLeft):
		api.Fail(c, http.StatusUnprocessableEntity, "no attempts left")
		return
	case !api.Loaded(c, err):
		return
	}
	ctx, cancel := api.TemporalContext(c)
	defer cancel()
	if err := h.Temporal.SignalWorkflow(ctx, v.ID, "", idvwf.SignalAttempt, idvwf.AttemptSignal{AttemptID: a.ID, Number: a.Number}); err != nil {
		api.Logger(c).Error("signal identity verification", "verificationId", v.ID, "attemptId", a.ID, "error", err)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	api.Accepted(c, gin.H{"id": a.ID, "verificationId": v.ID, "number": a.Number})
}

// readImages stores the multipart body's front and back images and returns their blob keys;
// it answers 400, 413 or 415 itself.
func (h *Handler) readImages(c *gin.Context) (map[string]string, bool) {
	mr, err := c.Request.MultipartReader()
	if err != nil {
		api.ValidationFailed(c, api.FieldErrors{"body": {"must be multipart/form-data with a boundary"}})
		return nil, false
	}
	keys := map[string]string{}
	fe := api.FieldErrors{}
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bodyFailed(c, err)
		}
		name := part.FormName()
		switch {
		case parts >= 4:
			fe.Add("body", "must have at most the parts front and back")
		case name != "front" && name != "back":
			fe.Add(name, "unknown field: send front and, optionally, back")
		case keys[name] != "":
			fe.Add(name, "must be given once")
		default:
			key, ok := h.storeImage(c, part, name, fe)
			if !ok {
				return nil, false
			}
			keys[name] = key
		}
		if fe.Any() {
			break
		}
	}
	if keys["front"] == "" && !fe.Any() {
		fe.Add("front", "is required")
	}
	if fe.Any() {
		api.ValidationFailed(c, fe)
		return nil, false
	}
	return keys, true
}

// storeImage sniffs one image (415 unless PNG, JPEG, TIFF or PDF) and stores it (413 past
// documents.max_upload_bytes).
func (h *Handler) storeImage(c *gin.Context, part *multipart.Part, name string, fe api.FieldErrors) (string, bool) {
	br := bufio.NewReaderSize(part, docintel.SniffLen)
	head, err := br.Peek(docintel.SniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", bodyFailed(c, err)
	}
	if len(head) == 0 {
		fe.Add(name, "is empty")
		return "", true
	}
	if docintel.Sniff(head) == docintel.FormatUnknown {
		api.Fail(c, http.StatusUnsupportedMediaType, api.MsgUnsupportedMedia+": "+name+" must be a PNG, JPEG, TIFF or PDF")
		return "", false
	}
	b, err := blobs.Put(c.Request.Context(), h.Blobs, br, h.Config.Documents.MaxUploadBytes)
	switch {
	case errors.Is(err, blobs.ErrTooLarge):
		api.Fail(c, http.StatusRequestEntityTooLarge, api.MsgTooLarge)
		return "", false
	case err != nil:
		return "", bodyFailed(c, err)
	}
	return b.Key, true
}

// bodyFailed answers a body that could not be read: 413 past the route's cap, 400 otherwise.
func bodyFailed(c *gin.Context, err error) bool {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		api.Fail(c, http.StatusRequestEntityTooLarge, api.MsgTooLarge)
		return false
	}
	api.ValidationFailed(c, api.FieldErrors{"body": {"is not a complete multipart/form-data body"}})
	return false
}

// listAttempts answers GET /api/identity/attempts: the organisation's attempts, newest first,
// by cursor (filters status, customerId, from, to). Attempts created while a client pages are
// newer than its cursor, so none is skipped or repeated.
func (h *Handler) listAttempts(c *gin.Context) {
	var sts []string
	for _, s := range idv.AttemptTable.States() {
		sts = append(sts, string(s))
	}
	q, ok := api.ParseList(c, api.ListSpec{Cursor: true, Filters: []string{api.FilterStatus, api.FilterCustomerID, api.FilterFrom, api.FilterTo}, Statuses: sts})
	if !ok {
		return
	}
	rows, next, err := h.Store.Identity.ListAttempts(c.Request.Context(), api.PrincipalOf(c).OrgID, q.Cursor, q.Filter)
	if err != nil {
		api.Internal(c, err)
		return
	}
	api.CursorRows(c, rows, next, newAttemptView, nil)
}
