package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	idvacts "github.com/svcplatform/svc/activities/identity"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/netguard"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
)

// serviceKeys gives the worker the value of an organisation's service principal key for one
// connection (SPEC 5.6): the platform issues it on first need and keeps it only sealed with
// the secret box (store.ServiceKeys), so the value lives in this process's memory for the
// length of one call and is never logged.
func serviceKeys(cfg *config.Config, st *store.Store, box *secrets.Box, conn auth.ServiceConnection) idvacts.ServiceKeysFunc {
	return func(ctx context.Context, orgID string) (string, error) {
		return st.ServiceKeys.Secret(ctx, box, store.ServiceKeyRequest{OrgID: orgID, Connection: conn,
			Environment: cfg.Environment, Now: time.Now()})
	}
}

// identityScreener is the identity product's screener: the screening API at
// config.IdentityScreeningURL, reached through the SSRF guard, with the organisation's
// identity service key. It is nil (with a warning) when no URL or no secret box is configured.
func identityScreener(cfg *config.Config, st *store.Store, log *slog.Logger) (*idvacts.ScreeningClient, error) {
	url := cfg.IdentityScreeningURL()
	box, err := secrets.FromConfig(cfg.Secrets.Key)
	if errors.Is(err, secrets.ErrNoKey) || url == "" {
		log.Warn("identity: no screening (set identity.screening_api_url or http.public_url, and secrets.key): policies with requireScreening end in review")
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	conn, ok := auth.ServiceConnectionOf(idvacts.ServiceSlug)
	if !ok {
		return nil, fmt.Errorf("identity: no service connection for %q", idvacts.ServiceSlug)
	}
	g, err := netguard.New(netguard.Config{AllowCIDRs: cfg.Identity.ScreeningAllowCIDRs, RequireHTTPS: cfg.Environment == "live", Timeout: 30 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("config: identity.screening_allow_cidrs: %w", err)
	}
	return &idvacts.ScreeningClient{BaseURL: url, Keys: serviceKeys(cfg, st, box, conn), HTTP: g.Client()}, nil
}
