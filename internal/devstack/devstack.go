// Package devstack runs the whole platform in one process, as `svc dev` does: the embedded
// Temporal server and UI, the worker and the API, with everything kept under one data directory.
// The end-to-end tests boot exactly this.
package devstack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"

	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/app"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/devserver"
	"github.com/svcplatform/svc/internal/secrets"
	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/worker"
	"github.com/svcplatform/svc/workflows"
)

// CredentialsFile is the name of the dev credentials file in the data directory.
const CredentialsFile = "dev-credentials.json"

// Credentials are the first organisation, user and key svc dev creates.
type Credentials struct {
	OrgID    string `json:"orgId"`
	UserID   string `json:"userId"`
	APIKeyID string `json:"apiKeyId"`
	APIKey   string `json:"apiKey"`
	BaseURL  string `json:"baseUrl"`
}

// Stack is a running platform.
type Stack struct {
	Config *config.Config
	App    *app.App
	// BaseURL of the API.
	BaseURL string
	// TemporalAddress of the embedded frontend.
	TemporalAddress string
	// UIURL of the Temporal UI ("" without a UI).
	UIURL string
	// Credentials of the dev organisation.
	Credentials Credentials
	// CreatedCredentials is true when this start created them (the first start of a data directory).
	CreatedCredentials bool

	temporal *devserver.Server
	workers  *worker.Workers
	cancel   context.CancelFunc
	apiDone  chan error
	stopOnce sync.Once
	stopErr  error
}

// Start boots everything and returns once the API accepts requests.
func Start(ctx context.Context, cfg *config.Config, logger *slog.Logger) (s *Stack, err error) {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data_dir: %w", err)
	}
	if err := ensureSecretKey(cfg); err != nil {
		return nil, err
	}
	if len(cfg.Webhooks.AllowCIDRs) == 0 {
		// svc dev delivers to receivers on this machine.
		cfg.Webhooks.AllowCIDRs = []string{"127.0.0.0/8", "::1/128"}
	}
	if len(cfg.Identity.ScreeningAllowCIDRs) == 0 {
		// svc dev's worker screens through its own API on loopback.
		cfg.Identity.ScreeningAllowCIDRs = []string{"127.0.0.0/8", "::1/128"}
	}
	ts, err := devserver.Start(ctx, devserver.Options{
		DatabaseFile:     filepath.Join(cfg.DataDir, "temporal.db"),
		Port:             cfg.Temporal.Port,
		UIPort:           cfg.Temporal.UIPort,
		Namespace:        cfg.Temporal.Namespace,
		SearchAttributes: workflows.SearchAttributeNames,
		Retention:        cfg.Temporal.Retention,
		Logger:           logger,
	})
	if err != nil {
		return nil, err
	}
	s = &Stack{Config: cfg, temporal: ts, TemporalAddress: ts.Address(), UIURL: ts.UIURL()}
	defer func() {
		if err != nil {
			_ = s.Stop()
		}
	}()
	a, err := app.Open(ctx, cfg, logger, app.Options{Migrate: true, TemporalAddress: ts.Address(), Dev: true})
	if err != nil {
		return nil, err
	}
	s.App = a
	// The listener comes first: the worker's identity screenings call this API (its URL is
	// http.public_url), with the organisation's service key.
	ln, err := net.Listen("tcp", cfg.HTTP.Addr)
	if err != nil {
		return nil, fmt.Errorf("http.addr %s: %w", cfg.HTTP.Addr, err)
	}
	if cfg.HTTP.PublicURL == "" {
		cfg.HTTP.PublicURL = "http://" + ln.Addr().String()
	}
	s.BaseURL = cfg.BaseURL()
	ws, err := a.Workers()
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	if err := ws.Start(); err != nil {
		_ = ln.Close()
		return nil, err
	}
	s.workers = ws
	if s.Credentials, s.CreatedCredentials, err = ensureCredentials(ctx, cfg, a.Store, s.BaseURL); err != nil {
		_ = ln.Close()
		return nil, err
	}
	apiCtx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.apiDone = make(chan error, 1)
	srv := a.API()
	if _, err := app.ServeProfiles(apiCtx, cfg.HTTP.PprofAddr, logger); err != nil {
		cancel()
		_ = ln.Close()
		return nil, fmt.Errorf("http.pprof_addr %s: %w", cfg.HTTP.PprofAddr, err)
	}
	go func() { s.apiDone <- srv.Serve(apiCtx, ln, cfg.HTTP.ShutdownGrace) }()
	return s, nil
}

// Stop stops accepting requests and drains them, stops the workers, then Temporal.
func (s *Stack) Stop() error {
	s.stopOnce.Do(func() {
		var errs []error
		if s.cancel != nil {
			s.cancel()
			if err := <-s.apiDone; err != nil {
				errs = append(errs, err)
			}
		}
		if s.workers != nil {
			s.workers.Stop()
		}
		if s.App != nil {
			s.App.Close()
		}
		if s.temporal != nil {
			if err := s.temporal.Stop(); err != nil {
				errs = append(errs, err)
			}
		}
		s.stopErr = errors.Join(errs...)
	})
	return s.stopErr
}

// ensureSecretKey loads or creates the key that encrypts secrets at rest, kept in the data directory.
func ensureSecretKey(cfg *config.Config) error {
	if cfg.Secrets.Key != "" {
		return nil
	}
	path := filepath.Join(cfg.DataDir, "secret.key")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key, err := secrets.NewKey()
		if err != nil {
			return fmt.Errorf("secret key: %w", err)
		}
		b = []byte(key)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return fmt.Errorf("secret key: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("secret key: %w", err)
	}
	cfg.Secrets.Key = string(b)
	return cfg.Validate()
}

// ensureCredentials creates the dev organisation, admin user and key on the first start of a data
// directory and writes them to dev-credentials.json (mode 0600); later starts read the file.
func ensureCredentials(ctx context.Context, cfg *config.Config, st *store.Store, baseURL string) (Credentials, bool, error) {
	path := filepath.Join(cfg.DataDir, CredentialsFile)
	if b, err := os.ReadFile(path); err == nil {
		var c Credentials
		if err := json.Unmarshal(b, &c); err != nil {
			return c, false, fmt.Errorf("%s: %w", path, err)
		}
		if c.BaseURL != baseURL { // the API may listen elsewhere this time
			c.BaseURL = baseURL
			if err := writeCredentials(path, c); err != nil {
				return c, false, err
			}
		}
		return c, false, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return Credentials{}, false, err
	}
	res, err := st.Orgs.Bootstrap(ctx, store.BootstrapInput{
		OrgName:     "Dev organisation",
		Email:       "admin@svc.local",
		UserName:    "admin",
		Role:        auth.RoleAdmin,
		Environment: cfg.Environment,
		KeyName:     "dev",
		// Every scope: the legacy wildcards cover every resource; the two management scopes are separate.
		Scopes: []string{auth.ScopeRead, auth.ScopeWrite, auth.ScopeWebhooksManage, auth.ScopeAPIManage},
	})
	if err != nil {
		return Credentials{}, false, err
	}
	c := Credentials{OrgID: res.Org.ID, UserID: res.User.ID, APIKeyID: res.Key.ID, APIKey: res.Secret, BaseURL: baseURL}
	return c, true, writeCredentials(path, c)
}

func writeCredentials(path string, c Credentials) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
