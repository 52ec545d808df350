package identity

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	idv "github.com/svcplatform/svc/internal/identity"
)

// ServiceSlug is the callerServiceSlug of the identity product's service principal keys
// (SPEC 5.6): the screening product sees it on every screening the identity product asks for.
const ServiceSlug = "identity"

// ServiceKeys gives, for an organisation, the value of the service principal key
// (callerServiceSlug ServiceSlug, scope screenings:write) with which the identity product
// calls the screening product on the organisation's behalf. The platform issues these keys
// when it connects sibling services (SPEC 5.6); this product only reads them.
type ServiceKeys interface {
	ScreeningKey(ctx context.Context, orgID string) (string, error)
}

// ServiceKeysFunc adapts a function to ServiceKeys.
type ServiceKeysFunc func(ctx context.Context, orgID string) (string, error)

// ScreeningKey implements ServiceKeys.
func (f ServiceKeysFunc) ScreeningKey(ctx context.Context, orgID string) (string, error) {
	return f(ctx, orgID)
}

// maxScreeningAnswer bounds the screening answer read back (its hits are explained at length).
const maxScreeningAnswer = 4 << 20

// ScreeningClient is the Screener that asks the screening product's API: POST
// {BaseURL}/api/screenings with the organisation's service principal key. The screening's
// externalId is the verification's id and the attempt's number, so a retried attempt gets the
// first screening back instead of a second one.
type ScreeningClient struct {
	// BaseURL is the screening API's origin (e.g. https://svc.example.com).
	BaseURL string
	Keys    ServiceKeys
	// HTTP must be the SSRF guard's client (internal/netguard).
	HTTP *http.Client
}

// screeningAnswer is the part of the screening product's answer the identity product reads.
type screeningAnswer struct {
	Data struct {
		ID       string `json:"id"`
		HitCount int    `json:"hitCount"`
	} `json:"data"`
	Error string `json:"error"`
}

// Screen implements idv.Screener.
func (s *ScreeningClient) Screen(ctx context.Context, r idv.ScreeningRequest) (idv.ScreeningOutcome, error) {
	key, err := s.Keys.ScreeningKey(ctx, r.OrgID)
	if err != nil {
		return idv.ScreeningOutcome{}, fmt.Errorf("identity screening: no service key for the organisation: %w", err)
	}
	body, err := json.Marshal(map[string]any{
		"fullName": r.FullName, "birthDate": r.BirthDate, "entityType": "person", "customerId": r.CustomerID,
		"externalId": "identity-" + r.VerificationID + "-" + strconv.Itoa(r.AttemptNumber),
	})
	if err != nil {
		return idv.ScreeningOutcome{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(s.BaseURL, "/")+"/api/screenings", bytes.NewReader(body))
	if err != nil {
		return idv.ScreeningOutcome{}, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := s.HTTP.Do(req)
	if err != nil {
		return idv.ScreeningOutcome{}, fmt.Errorf("identity screening: %w", err)
	}
	defer res.Body.Close()
	var a screeningAnswer
	if err := json.NewDecoder(io.LimitReader(res.Body, maxScreeningAnswer)).Decode(&a); err != nil {
		return idv.ScreeningOutcome{}, fmt.Errorf("identity screening: answer %d: %w", res.StatusCode, err)
	}
	if res.StatusCode != http.StatusCreated && res.StatusCode != http.StatusOK {
		// The error message is the screening API's (never the key): 403 when the organisation
		// lacks the screening product, 429 past its rate.
		return idv.ScreeningOutcome{}, fmt.Errorf("identity screening: %d %s", res.StatusCode, a.Error)
	}
	if a.Data.ID == "" {
		return idv.ScreeningOutcome{}, errors.New("identity screening: answer without a screening id")
	}
	return idv.ScreeningOutcome{ScreeningID: a.Data.ID, Matches: a.Data.HitCount}, nil
}
