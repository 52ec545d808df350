package dashboard

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/svcplatform/svc/internal/blobs"
	docintel "github.com/svcplatform/svc/internal/documents"
)

type documentsData struct {
	Rows     []any
	Statuses []docintel.Status
	Status   string
}

// documents is the review queue: documents in requires_review by default (any status by
// choice), newest first.
func (d *Dashboard) documents(q *request) {
	status := q.r.URL.Query().Get("status")
	if status == "" {
		status = string(docintel.StatusRequiresReview)
	}
	query := url.Values{"limit": {"50"}}
	if status != "all" {
		query.Set("status", status)
	}
	a, ok := q.get("/api/documents", query)
	if !ok {
		return
	}
	q.render(http.StatusOK, "documents", view{Title: "Documents", Section: "documents",
		Data: documentsData{Rows: a.Rows(), Statuses: docintel.Statuses(), Status: status}})
}

type documentData struct {
	Doc map[string]any
	// Image is true when the page can be shown beside the fields (a PNG or JPEG upload).
	Image bool
}

// document is one document: its page beside the latest extraction's fields with their
// confidence, problems and flags; the correction form; the password form while it waits for one.
func (d *Dashboard) document(q *request) {
	q.showDocument(http.StatusOK, "", nil)
}

func (q *request) showDocument(status int, refusal string, refused *answer) {
	a, ok := q.get("/api/documents/"+url.PathEscape(q.r.PathValue("id")), nil)
	if !ok {
		return
	}
	doc := a.Data()
	v := view{Title: "Document " + str(doc["filename"]), Section: "documents", Refusal: refusal,
		Data: documentData{Doc: doc, Image: pageImageTypes[str(doc["format"])] != ""}}
	if refused != nil {
		v.FieldErrors = refused.FieldErrors()
	}
	q.render(status, "document", v)
}

// pageImageTypes are the upload formats a browser shows as they are, with their media type.
var pageImageTypes = map[string]string{string(docintel.FormatPNG): "image/png", string(docintel.FormatJPEG): "image/jpeg"}

// documentPage answers the uploaded page image. The API answers the document first, so
// another organisation's document (or a read the visitor may not make) is refused as there.
func (d *Dashboard) documentPage(q *request) {
	id := q.r.PathValue("id")
	a, ok := q.get("/api/documents/"+url.PathEscape(id), nil)
	if !ok {
		return
	}
	mediaType := pageImageTypes[str(a.Data()["format"])]
	if mediaType == "" {
		q.notFound()
		return
	}
	doc, err := d.Store.Documents.Get(q.r.Context(), q.sess.OrgID, id)
	if err != nil || doc.BlobKey == "" {
		q.notFound()
		return
	}
	if err := d.servePage(q, doc.BlobKey, mediaType); err != nil {
		d.Logger.Error("dashboard document page", "documentId", id, "error", err)
		q.notFound()
	}
}

func (d *Dashboard) servePage(q *request, key, mediaType string) error {
	bs, err := d.blobs()
	if err != nil {
		return err
	}
	rc, err := bs.Open(q.r.Context(), key)
	if err != nil {
		return err
	}
	defer rc.Close()
	q.w.Header().Set("Content-Type", mediaType)
	q.w.Header().Set("Content-Disposition", "inline")
	_, err = io.Copy(q.w, rc)
	return err
}

// blobs opens the uploads' store as the documents API does (config blobs.backend).
func (d *Dashboard) blobs() (blobs.Store, error) {
	d.blobsOnce.Do(func() { d.blobStore, d.blobsErr = blobs.FromConfig(context.Background(), d.Config) })
	return d.blobStore, d.blobsErr
}

// correctDocument sends the changed fields as a correction through the API (a new extraction
// made by the DocumentCorrection workflow, with the visitor as actor).
func (d *Dashboard) correctDocument(q *request) {
	_ = q.r.ParseForm()
	fields := map[string]*string{}
	for key, vals := range q.r.PostForm {
		name, ok := strings.CutPrefix(key, "field.")
		if !ok || len(vals) == 0 {
			continue
		}
		if was, ok := q.r.PostForm["was."+name]; ok && len(was) > 0 && was[0] == vals[0] {
			continue // unchanged
		}
		v := vals[0]
		fields[name] = &v
	}
	if len(fields) == 0 {
		q.showDocument(http.StatusBadRequest, "Change at least one field before saving a correction.", nil)
		return
	}
	q.documentAnswer(q.call(http.MethodPost, "/api/documents/"+url.PathEscape(q.r.PathValue("id"))+"/corrections", nil,
		map[string]any{"fields": fields}), "corrected")
}

// documentPassword gives the password of a PDF waiting in password_required, through the API.
func (d *Dashboard) documentPassword(q *request) {
	q.documentAnswer(q.call(http.MethodPost, "/api/documents/"+url.PathEscape(q.r.PathValue("id"))+"/password", nil,
		map[string]any{"password": q.r.PostFormValue("password")}), "password")
}

func (q *request) documentAnswer(a answer, done string) {
	q.acted(a, Prefix+"/documents/"+url.PathEscape(q.r.PathValue("id"))+"?done="+done, q.showDocument)
}
