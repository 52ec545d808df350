package api

import (
	_ "embed"
	"encoding/json"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"
)

// openapiYAML is the hand-written description of every endpoint; a test keeps it equal to the
// route table and validates every response the test suite receives against it.
//
//go:embed openapi.yaml
var openapiYAML []byte

// OpenAPIDoc parses the OpenAPI document.
func OpenAPIDoc() (*openapi3.T, error) {
	return openapi3.NewLoader().LoadFromData(openapiYAML)
}

// OpenAPIJSON is the OpenAPI document as JSON.
func OpenAPIJSON() ([]byte, error) {
	doc, err := OpenAPIDoc()
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

func (s *Server) openapi(c *gin.Context) {
	b, err := OpenAPIJSON()
	if err != nil || !json.Valid(b) {
		Internal(c, err)
		return
	}
	c.Data(http.StatusOK, "application/json", b)
}
