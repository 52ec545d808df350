package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/internal/app"
	"github.com/svcplatform/svc/internal/auth"
	"github.com/svcplatform/svc/internal/buildinfo"
	"github.com/svcplatform/svc/internal/devstack"
	"github.com/svcplatform/svc/store"
)

// flagKeyAnnotation marks a flag as setting a configuration key.
const flagKeyAnnotation = "svc-config-key"

// configFlag defines a flag that sets configuration key key; its type, default and help come from
// the config keys table, so a default is written in one place only.
func configFlag(cmd *cobra.Command, name, key string) {
	k, ok := config.Lookup(key)
	if !ok {
		panic("cmd/svc: flag " + name + " names unknown config key " + key)
	}
	switch d := k.Default.(type) {
	case int:
		cmd.Flags().Int(name, d, k.Help)
	default:
		cmd.Flags().String(name, fmt.Sprint(d), k.Help)
	}
	_ = cmd.Flags().SetAnnotation(name, flagKeyAnnotation, []string{key})
}

// loadConfig reads the configuration; flags defined with configFlag override their keys.
func loadConfig(cmd *cobra.Command) (*config.Config, error) {
	file, _ := cmd.Flags().GetString("config")
	flagKeys := map[string]string{}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if key := f.Annotations[flagKeyAnnotation]; len(key) == 1 {
			flagKeys[f.Name] = key[0]
		}
	})
	return config.Load(config.Options{File: file, Flags: cmd.Flags(), FlagKeys: flagKeys})
}

func newDev() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run everything in one process: embedded Temporal and UI, worker and API",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			logger := app.NewLogger(os.Stderr, cfg.Log)
			start := time.Now()
			stack, err := devstack.Start(cmd.Context(), cfg, logger)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "\nsvc dev is ready (%s)\n", time.Since(start).Round(time.Millisecond))
			fmt.Fprintf(out, "  API          %s\n", stack.BaseURL)
			fmt.Fprintf(out, "  Temporal     %s (namespace %s)\n", stack.TemporalAddress, cfg.Temporal.Namespace)
			if stack.UIURL != "" {
				fmt.Fprintf(out, "  Temporal UI  %s\n", stack.UIURL)
			}
			fmt.Fprintf(out, "  Data         %s\n", cfg.DataDir)
			creds := cfg.DataDir + "/" + devstack.CredentialsFile
			if stack.CreatedCredentials {
				fmt.Fprintf(out, "  Dev API key  %s   (shown once; also in %s)\n", stack.Credentials.APIKey, creds)
			} else {
				fmt.Fprintf(out, "  Credentials  %s\n", creds)
			}
			fmt.Fprintf(out, "  Try          curl -H \"Authorization: Bearer $(jq -r .apiKey %s)\" %s/identity/api/auth/me\n\n", creds, stack.BaseURL)
			<-cmd.Context().Done()
			fmt.Fprintln(out, "stopping: draining API requests, stopping the worker, then Temporal")
			return stack.Stop()
		},
	}
	configFlag(cmd, "data-dir", "data_dir")
	configFlag(cmd, "http-addr", "http.addr")
	configFlag(cmd, "temporal-port", "temporal.port")
	configFlag(cmd, "ui-port", "temporal.ui_port")
	return cmd
}

func newAPI() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "api",
		Short: "Serve the HTTP API against an external Temporal and database",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := openDeployment(cmd)
			if err != nil {
				return err
			}
			defer a.Close()
			cfg, logger := a.Config, a.Logger
			if _, err := app.ServeProfiles(cmd.Context(), cfg.HTTP.PprofAddr, logger); err != nil {
				return fmt.Errorf("http.pprof_addr %s: %w", cfg.HTTP.PprofAddr, err)
			}
			return a.ServeAPI(cmd.Context(), cfg.HTTP.Addr, func(addr net.Addr) {
				logger.Info("api listening", "addr", addr.String(), "environment", cfg.Environment)
			})
		},
	}
	configFlag(cmd, "http-addr", "http.addr")
	return cmd
}

func newWorker() *cobra.Command {
	return &cobra.Command{
		Use:   "worker",
		Short: "Run the Temporal worker (task queues orchestration, documents, webhooks)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := openDeployment(cmd)
			if err != nil {
				return err
			}
			defer a.Close()
			cfg, logger := a.Config, a.Logger
			if _, err := app.ServeProfiles(cmd.Context(), cfg.HTTP.PprofAddr, logger); err != nil {
				return fmt.Errorf("http.pprof_addr %s: %w", cfg.HTTP.PprofAddr, err)
			}
			if _, err := app.ServeWorkerMetrics(cmd.Context(), cfg.HTTP.WorkerMetricsAddr, a.Registry, logger); err != nil {
				return fmt.Errorf("http.worker_metrics_addr %s: %w", cfg.HTTP.WorkerMetricsAddr, err)
			}
			ws, err := a.Workers()
			if err != nil {
				return err
			}
			if err := ws.Start(); err != nil {
				return err
			}
			logger.Info("worker polling", "temporal", cfg.Temporal.Address)
			<-cmd.Context().Done()
			ws.Stop()
			return nil
		},
	}
}

func newMigrate() *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Apply the application database's pending migrations (waits for another svc migrate)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, st, err := openMigratedStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			v, err := st.SchemaVersion(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "migrated", st.Dialect, "database to schema version", v)
			return nil
		},
	}
}

func newBootstrap() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bootstrap",
		Short: "Create an organisation (or add to one), a user and a key bound to it; prints JSON",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			org, _ := f.GetString("org")
			orgID, _ := f.GetString("org-id")
			env, _ := f.GetString("env")
			scopes, _ := f.GetStringSlice("scopes")
			email, _ := f.GetString("user")
			role, _ := f.GetString("role")
			service, _ := f.GetString("service")
			if (org == "") == (orgID == "") {
				return errors.New("give exactly one of --org NAME (new organisation) or --org-id org_… (existing)")
			}
			if email == "" && service == "" && orgID != "" {
				return errors.New("--user EMAIL (or --service SLUG) is required with --org-id")
			}
			if service != "" && email != "" {
				return errors.New("a service principal key (--service) is not bound to a user: drop --user")
			}
			in := store.BootstrapInput{OrgID: orgID, OrgName: org, Email: email, UserName: email, Role: role, ServiceSlug: service, Environment: env,
				// A new organisation without --user gets its own default user (see DefaultUserEmail).
				DefaultUser: email == "" && service == ""}
			if f.Changed("capabilities") {
				caps, _ := f.GetStringSlice("capabilities")
				for i := range caps {
					caps[i] = strings.TrimSpace(caps[i])
				}
				in.Capabilities = caps
			}
			if f.Changed("scopes") {
				for i, s := range scopes {
					scopes[i] = strings.TrimSpace(s)
					if !auth.ValidScope(scopes[i]) {
						return fmt.Errorf("--scopes: %q is not a scope", s)
					}
				}
				in.Scopes = scopes
			}
			cfg, st, err := openMigratedStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			res, err := st.Orgs.Bootstrap(cmd.Context(), in)
			if err != nil {
				return err
			}
			out := bootstrapOutput{Credentials: devstack.Credentials{OrgID: res.Org.ID, APIKeyID: res.Key.ID, APIKey: res.Secret, BaseURL: cfg.BaseURL()}}
			if res.User != nil {
				out.UserID, out.UserEmail = res.User.ID, res.User.Email
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		},
	}
	f := cmd.Flags()
	f.String("org", "", "name of a new organisation")
	f.String("org-id", "", "id of an existing organisation to add a user and key to")
	f.String("env", "sandbox", "key environment: sandbox or live")
	f.StringSlice("scopes", nil, "comma-separated scopes of the key (default: the role's scopes)")
	f.String("user", "", "email of a user to create and bind the key to (default with --org: admin+<org id>@svc.local)")
	f.String("role", "admin", "role of that user: admin, reviewer, analyst or viewer")
	f.String("service", "", "issue a service principal key for this calling service slug instead")
	f.StringSlice("capabilities", nil, "products of a new organisation, comma-separated ("+strings.Join(auth.Products(), ", ")+"); default: every product")
	configFlag(cmd, "data-dir", "data_dir")
	return cmd
}

// bootstrapOutput is what svc bootstrap prints: the credentials, and the user's email, which the
// caller did not choose when it is the default user's.
type bootstrapOutput struct {
	devstack.Credentials
	UserEmail string `json:"userEmail,omitempty"`
}

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "svc %s %s %s/%s\n", buildinfo.Version, buildinfo.Commit(), runtime.GOOS, runtime.GOARCH)
		},
	}
}

// openMigratedStore loads the configuration and opens its database with every table migrated.
func openMigratedStore(cmd *cobra.Command) (*config.Config, *store.Store, error) {
	cfg, err := loadConfig(cmd)
	if err != nil {
		return nil, nil, err
	}
	st, err := store.Open(cmd.Context(), cfg.DatabaseURL())
	if err != nil {
		return nil, nil, err
	}
	if err := st.Migrate(cmd.Context()); err != nil {
		_ = st.Close()
		return nil, nil, err
	}
	return cfg, st, nil
}

// openDeployment loads the configuration of svc api or svc worker, checks what a deployment needs,
// and connects to the database and Temporal.
func openDeployment(cmd *cobra.Command) (*app.App, error) {
	cfg, err := loadConfig(cmd)
	if err != nil {
		return nil, err
	}
	if err := requireDeployment(cfg); err != nil {
		return nil, err
	}
	return app.Open(cmd.Context(), cfg, app.NewLogger(os.Stderr, cfg.Log), app.Options{})
}

// requireDeployment checks what svc api and svc worker need beyond defaults.
func requireDeployment(cfg *config.Config) error {
	if cfg.Temporal.Address == "" {
		return errors.New("config: temporal.address (SVC_TEMPORAL_ADDRESS) is required for svc api and svc worker")
	}
	if cfg.Secrets.Key == "" {
		return errors.New("config: secrets.key (SVC_SECRETS_KEY) is required for svc api and svc worker: 32 random bytes, base64")
	}
	return nil
}
