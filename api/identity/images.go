package identity

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/internal/blobs"
	docintel "github.com/svcplatform/svc/internal/documents"
)

// contentTypes are the media types of the formats an attempt's image can have.
var contentTypes = map[docintel.Format]string{
	docintel.FormatPNG: "image/png", docintel.FormatJPEG: "image/jpeg", docintel.FormatTIFF: "image/tiff", docintel.FormatPDF: "application/pdf",
}

// getImage answers GET /api/identity/attempts/{id}/images/{side}: the front or back image of
// one of the organisation's attempts (404 for another organisation's, for a missing back and
// once the retention deleted it). The route records every successful read in the audit log
// (user, key, attempt id).
func (h *Handler) getImage(c *gin.Context) {
	a, err := h.Store.Identity.GetAttempt(c.Request.Context(), api.PrincipalOf(c).OrgID, api.PathID(c))
	if !api.Loaded(c, err) {
		return
	}
	key := map[string]string{"front": a.FrontKey, "back": a.BackKey}[c.Param("side")]
	if key == "" || h.Blobs == nil {
		api.NotFound(c)
		return
	}
	data, err := blobs.ReadAll(c.Request.Context(), h.Blobs, key, h.Config.Documents.MaxUploadBytes)
	if errors.Is(err, blobs.ErrNotFound) {
		api.NotFound(c)
		return
	}
	if err != nil {
		api.Internal(c, err)
		return
	}
	n := min(len(data), docintel.SniffLen)
	ct, ok := contentTypes[docintel.Sniff(data[:n])]
	if !ok {
		ct = "application/octet-stream"
	}
	c.Header("Cache-Control", "no-store")
	c.Data(http.StatusOK, ct, data)
}
