package statements

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/blobs"
	"github.com/svcplatform/svc/internal/ids"
	stmt "github.com/svcplatform/svc/internal/statements"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/workflows"
	stmtwf "github.com/svcplatform/svc/workflows/statements"
)

// Upload limits besides the files' size (config documents.max_upload_bytes, for all the
// files of one upload together).
const (
	// uploadOverhead is what a multipart body may hold beyond the files: the fields and the
	// part headers.
	uploadOverhead = 64 << 10
	// MaxFiles is how many statement files one analysis takes (one account's months).
	MaxFiles = 12
	// MaxPassword is the longest password accepted for an encrypted PDF, in bytes.
	MaxPassword = 1024
)

// uploadFields are the text fields of an upload and their maximum lengths in bytes.
var uploadFields = map[string]int{"password": MaxPassword, "externalRef": 200, "externalId": 200}

// upload is a parsed upload: the files, spooled to the blob store's temporary directory,
// and the fields.
type upload struct {
	files  []uploadedFile
	fields map[string]string
}

type uploadedFile struct {
	spool    *blobs.Spool
	filename string
	kind     stmt.Kind
}

func (u *upload) close() {
	for _, f := range u.files {
		_ = f.spool.Close()
	}
}

// uploadAnalysis answers POST /api/analyses/upload (multipart/form-data): every `file` part
// (one to MaxFiles, one account) is streamed to a temporary file of the blob store while its
// SHA-256 is computed; its first bytes decide its kind (415 unless PDF, CSV, OFX/QFX or
// CAMT.053); more than documents.max_upload_bytes in all is 413. Then the fields are checked,
// the files stored, the analysis written and its pipeline started: 202 with data.id. An
// externalId makes the upload idempotent (SPEC 4.7).
func (h *Handler) uploadAnalysis(c *gin.Context) {
	if h.Blobs == nil {
		api.Logger(c).Error("blob store unavailable", "error", h.blobsErr)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	u, uerr := h.readUpload(c)
	defer u.close()
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

// readUpload reads the multipart body part by part; u is never nil.
func (h *Handler) readUpload(c *gin.Context) (*upload, *api.UploadError) {
	u := &upload{fields: map[string]string{}}
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return u, api.UploadFieldError("body", "must be multipart/form-data with a boundary")
	}
	fe := api.FieldErrors{}
	var total int64
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return u, api.UploadBodyError(err)
		}
		if parts == MaxFiles+len(uploadFields) {
			return u, api.UploadFieldError("body", fmt.Sprintf("must have at most %d parts", MaxFiles+len(uploadFields)))
		}
		name := part.FormName()
		switch _, field := uploadFields[name]; {
		case name == "file":
			if len(u.files) == MaxFiles {
				fe.Add("file", fmt.Sprintf("at most %d files make one analysis", MaxFiles))
				continue
			}
			f, uerr := h.readFilePart(c, part, h.Config.Documents.MaxUploadBytes-total)
			if uerr != nil {
				return u, uerr
			}
			total += f.spool.Size
			u.files = append(u.files, *f)
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
	if len(u.files) == 0 && len(fe["file"]) == 0 {
		fe.Add("file", "is required")
	}
	for _, name := range []string{"password", "externalRef"} {
		if v, ok := u.fields[name]; ok && v == "" {
			delete(u.fields, name) // an empty field is an absent one (HTML forms send them)
		}
	}
	if _, ok := u.fields["password"]; ok && !u.hasPDF() && len(u.files) > 0 {
		fe.Add("password", "only a PDF can have a password")
	}
	if fe.Any() {
		return u, &api.UploadError{Fields: fe}
	}
	return u, nil
}

// readFilePart sniffs one file's first bytes (415 for other kinds) and spools it (413 past
// what the upload may still hold).
func (h *Handler) readFilePart(c *gin.Context, part *multipart.Part, limit int64) (*uploadedFile, *api.UploadError) {
	f := &uploadedFile{filename: api.CleanFilename(part.FileName())}
	rr := &api.ErrReader{R: part}
	br := bufio.NewReaderSize(rr, stmt.SniffLen)
	head, _ := br.Peek(stmt.SniffLen)
	if rr.Failed() {
		return nil, api.UploadBodyError(rr.Err)
	}
	if len(head) == 0 {
		return nil, api.UploadFieldError("file", f.filename+" is empty")
	}
	if f.kind = stmt.Sniff(head); f.kind == stmt.KindUnknown {
		return nil, &api.UploadError{Status: http.StatusUnsupportedMediaType,
			Msg: api.MsgUnsupportedMedia + ": every file must be a PDF, CSV, OFX/QFX or CAMT.053 bank statement"}
	}
	if limit <= 0 {
		return nil, &api.UploadError{Status: http.StatusRequestEntityTooLarge, Msg: api.MsgTooLarge}
	}
	sp, err := h.Blobs.Spool(c.Request.Context(), br, limit)
	switch {
	case errors.Is(err, blobs.ErrTooLarge):
		return nil, &api.UploadError{Status: http.StatusRequestEntityTooLarge, Msg: api.MsgTooLarge}
	case err != nil && rr.Failed():
		return nil, api.UploadBodyError(rr.Err) // the client's body, not our disk
	case err != nil:
		return nil, &api.UploadError{Status: http.StatusInternalServerError, Msg: api.MsgInternal}
	}
	f.spool = sp
	return f, nil
}

func (u *upload) hasPDF() bool {
	for _, f := range u.files {
		if f.kind == stmt.KindPDF {
			return true
		}
	}
	return false
}

// hash is the idempotency hash of an upload: the files' digests and names in order and
// every field but the password (never kept in clear, not even hashed), canonical JSON.
func (u *upload) hash() string {
	files := make([][2]string, len(u.files))
	for i, f := range u.files {
		files[i] = [2]string{f.spool.SHA256, f.filename}
	}
	v := map[string]any{"files": files}
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

// acceptUpload stores the files and the analysis and starts its pipeline.
func (h *Handler) acceptUpload(c *gin.Context, u *upload) {
	password, hasPassword := u.fields["password"]
	if hasPassword && !h.boxAvailable(c) {
		return
	}
	if !api.TemporalAvailable(c, h.Temporal) {
		return
	}
	ctx := c.Request.Context()
	p := api.PrincipalOf(c)
	a := &store.Analysis{ID: api.NewID(c, ids.Analysis), OrgID: p.OrgID, ExternalRef: u.fields["externalRef"],
		ExternalID: u.fields["externalId"], UploadedBy: p.UserID}
	for _, f := range u.files {
		blob, err := h.Blobs.Commit(ctx, f.spool)
		if err != nil {
			api.Internal(c, err)
			return
		}
		a.Files = append(a.Files, store.AnalysisFile{Filename: f.filename, Kind: string(f.kind), Size: blob.Size, SHA256: blob.SHA256, BlobKey: blob.Key})
	}
	if hasPassword {
		var err error
		if a.PasswordSealed, err = h.box.Seal([]byte(password), store.AnalysisPasswordContext(a.ID)); err != nil {
			api.Internal(c, err)
			return
		}
	}
	if err := h.Store.Statements.CreateAnalysis(ctx, a); err != nil {
		api.Internal(c, err)
		return
	}
	in := stmtwf.AnalysisInput{AnalysisID: a.ID, OrgID: a.OrgID, Files: len(a.Files), ExternalRef: a.ExternalRef,
		ExternalID: a.ExternalID, PasswordTimeout: h.Config.Documents.PasswordTimeout}
	tctx, cancel := api.TemporalContext(c)
	defer cancel()
	if _, err := h.Temporal.ExecuteWorkflow(tctx, stmtwf.AnalysisStartOptions(in), stmtwf.AnalysisPipelineName, in); err != nil && !workflows.AlreadyStarted(err) {
		// Not started: forget the row (the blobs stay: another record may share their bytes).
		if derr := h.Store.Statements.DeleteUploaded(tctx, a.OrgID, a.ID); derr != nil {
			err = errors.Join(err, derr)
		}
		api.Logger(c).Error("start analysis pipeline", "analysisId", a.ID, "error", err)
		api.Fail(c, http.StatusServiceUnavailable, api.MsgUnavailable)
		return
	}
	api.Accepted(c, gin.H{"id": a.ID})
}
