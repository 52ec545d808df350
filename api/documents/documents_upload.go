package documents

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/svcplatform/svc/api"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/blobs"
	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	docwf "github.com/svcplatform/svc/workflows/documents"
)

// Upload limits besides the file's size (config documents.max_upload_bytes).
const (
	// uploadOverhead is what a multipart body may hold beyond the file: the other fields and
	// the part headers. The route's body cap is the file cap plus this.
	uploadOverhead = 64 << 10
	// maxUploadParts caps the parts of one upload (five fields and the file).
	maxUploadParts = 8
)

// uploadFields are the text fields of an upload and their maximum lengths in bytes.
var uploadFields = map[string]int{"type": 64, "password": MaxDocumentPassword, "externalRef": 200, "externalId": 200}

// upload is a parsed upload: the file, spooled to the blob store's temporary directory, and
// the fields.
type upload struct {
	spool    *blobs.Spool
	filename string
	format   docintel.Format
	fields   map[string]string
}

func (u *upload) close() {
	if u.spool != nil {
		_ = u.spool.Close()
	}
}

// uploadDocument answers POST /api/documents/upload (multipart/form-data): the file part is
// streamed to a temporary file of the blob store while its SHA-256 is computed (never held in
// memory), its first bytes decide the format (415 unless PDF, PNG, JPEG or TIFF), more than
// documents.max_upload_bytes is 413. Then the fields are checked, the file is stored, the
// document row written and its pipeline started: 202 with data.id. An externalId makes the
// upload idempotent (SPEC 4.7): the same file and fields replay the first answer, a different
// one is 422.
func (h *Handler) uploadDocument(c *gin.Context) {
	if h.Blobs == nil {
		api.Logger(c).Error("blob store unavailable", "error", h.blobsErr)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	u, uerr := h.readUpload(c)
	if u != nil {
		defer u.close()
	}
	if uerr != nil {
		uerr.Answer(c)
		return
	}
	next := func() { h.acceptUpload(c, u) }
	if extID, ok := u.fields["externalId"]; ok {
		api.Idempotent(c, extID, u.hash(), next)
		return
	}
	next()
}

// readUpload reads the multipart body part by part.
func (h *Handler) readUpload(c *gin.Context) (*upload, *api.UploadError) {
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return nil, api.UploadFieldError("body", "must be multipart/form-data with a boundary")
	}
	u := &upload{fields: map[string]string{}}
	fe := api.FieldErrors{}
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return u, api.UploadBodyError(err)
		}
		if parts == maxUploadParts {
			return u, api.UploadFieldError("body", fmt.Sprintf("must have at most %d parts", maxUploadParts))
		}
		name := part.FormName()
		switch _, field := uploadFields[name]; {
		case name == "file":
			if u.spool != nil {
				fe.Add("file", "must be given once")
				continue
			}
			if uerr := h.readFilePart(c.Request.Context(), part, u); uerr != nil {
				return u, uerr
			}
		case field:
			if _, seen := u.fields[name]; seen {
				fe.Add(name, "must be given once")
				continue
			}
			v, msg, uerr := api.ReadFormField(part, uploadFields[name])
			if uerr != nil {
				return u, uerr
			}
			if msg != "" {
				fe.Add(name, msg)
			}
			u.fields[name] = v
		case name == "":
			fe.Add("body", "every part needs a name (Content-Disposition: form-data; name=...)")
		default:
			fe.Add(name, "unknown field")
		}
	}
	if u.spool == nil && len(fe["file"]) == 0 {
		fe.Add("file", "is required")
	}
	for _, name := range []string{"type", "password", "externalRef"} {
		if v, ok := u.fields[name]; ok && v == "" {
			delete(u.fields, name) // an empty field is an absent one (HTML forms send them)
		}
	}
	if _, ok := u.fields["password"]; ok && u.spool != nil && u.format != docintel.FormatPDF {
		fe.Add("password", "only a PDF can have a password")
	}
	if hint, ok := u.fields["type"]; ok && !fe.Any() {
		if msg, err := h.checkTypeHint(c, hint); err != nil {
			return u, &api.UploadError{Status: http.StatusInternalServerError, Msg: api.MsgInternal}
		} else if msg != "" {
			fe.Add("type", msg)
		}
	}
	if fe.Any() {
		return u, &api.UploadError{Fields: fe}
	}
	return u, nil
}

// readFilePart sniffs the file's first bytes (415 for other formats) and spools it (413 past
// the cap).
func (h *Handler) readFilePart(ctx context.Context, part *multipart.Part, u *upload) *api.UploadError {
	u.filename = api.CleanFilename(part.FileName())
	rr := &api.ErrReader{R: part}
	br := bufio.NewReaderSize(rr, docintel.SniffLen)
	head, _ := br.Peek(docintel.SniffLen)
	if rr.Failed() {
		return api.UploadBodyError(rr.Err)
	}
	if len(head) == 0 {
		return api.UploadFieldError("file", "is empty")
	}
	if u.format = docintel.Sniff(head); u.format == docintel.FormatUnknown {
		return &api.UploadError{Status: http.StatusUnsupportedMediaType, Msg: api.MsgUnsupportedMedia + ": the file must be a PDF, PNG, JPEG or TIFF"}
	}
	sp, err := h.Blobs.Spool(ctx, br, h.Config.Documents.MaxUploadBytes)
	switch {
	case errors.Is(err, blobs.ErrTooLarge):
		return &api.UploadError{Status: http.StatusRequestEntityTooLarge, Msg: api.MsgTooLarge}
	case err != nil && rr.Failed():
		return api.UploadBodyError(rr.Err) // the client's body, not our disk
	case err != nil:
		return &api.UploadError{Status: http.StatusInternalServerError, Msg: api.MsgInternal}
	}
	u.spool = sp
	return nil
}

// checkTypeHint says what is wrong with a type hint ("" when it names a built-in type or one
// of the organisation's templates).
func (h *Handler) checkTypeHint(c *gin.Context, hint string) (string, error) {
	if docintel.IsBuiltinType(hint) {
		return "", nil
	}
	templates, err := h.Store.Documents.Templates(c.Request.Context(), api.PrincipalOf(c).OrgID)
	if err != nil {
		return "", err
	}
	if docintel.TemplateFor(hint, templates) != nil {
		return "", nil
	}
	return "must be " + strings.Join(docintel.BuiltinTypes(), ", ") + " or the type of one of the organisation's templates", nil
}

// hash is the idempotency hash of an upload: the file's digest and name and every field but
// the password (which is never kept in clear, not even hashed), canonical JSON.
func (u *upload) hash() string {
	v := map[string]any{"file": u.spool.SHA256, "filename": u.filename}
	for name, value := range u.fields {
		if name != "password" {
			v[name] = value
		}
	}
	_, v["password"] = u.fields["password"]
	b, _ := json.Marshal(v) // maps marshal with sorted keys
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// acceptUpload stores the file and the document and starts its pipeline.
func (h *Handler) acceptUpload(c *gin.Context, u *upload) {
	password, hasPassword := u.fields["password"]
	if hasPassword && !h.boxAvailable(c) { // the platform's secrets box seals the password
		return
	}
	if !api.TemporalAvailable(c, h.Temporal) {
		return
	}
	ctx := c.Request.Context()
	blob, err := h.Blobs.Commit(ctx, u.spool)
	if err != nil {
		api.Internal(c, err)
		return
	}
	p := api.PrincipalOf(c)
	d := &store.Document{
		ID: api.NewID(c, ids.Document), OrgID: p.OrgID, Type: u.fields["type"], TypeHint: u.fields["type"], Filename: u.filename,
		Format: string(u.format), Size: blob.Size, SHA256: blob.SHA256, BlobKey: blob.Key,
		ExternalRef: u.fields["externalRef"], ExternalID: u.fields["externalId"], UploadedBy: p.UserID,
	}
	if hasPassword {
		if d.PasswordSealed, err = h.box.Seal([]byte(password), store.DocumentPasswordContext(d.ID)); err != nil {
			api.Internal(c, err)
			return
		}
	}
	if err := h.Store.Documents.Create(ctx, d); err != nil {
		api.Internal(c, err)
		return
	}
	in := docwf.DocumentInput{DocumentID: d.ID, OrgID: d.OrgID, Filename: d.Filename, SHA256: d.SHA256,
		ExternalRef: d.ExternalRef, ExternalID: d.ExternalID, TypeHint: d.TypeHint, PasswordTimeout: h.Config.Documents.PasswordTimeout}
	tctx, cancel := api.TemporalContext(c)
	defer cancel()
	if _, err := h.Temporal.ExecuteWorkflow(tctx, docwf.DocumentStartOptions(in), docwf.DocumentPipelineName, in); err != nil && !workflows.AlreadyStarted(err) {
		// Not started: forget the row (the blob stays: another document may share its bytes).
		if derr := h.Store.Documents.DeleteUploaded(tctx, d.OrgID, d.ID); derr != nil {
			err = errors.Join(err, derr)
		}
		api.Logger(c).Error("start document pipeline", "documentId", d.ID, "error", err)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	api.Accepted(c, gin.H{"id": d.ID})
}
