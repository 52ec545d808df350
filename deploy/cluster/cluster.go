// Package cluster runs svc's multi-process topology on one machine without Docker: the
// machine's PostgreSQL, a Temporal server built from the pinned server module with
// PostgreSQL persistence and SQL visibility (its schema made by the module's own SQL tool),
// N × `svc api`, M × `svc worker`, an S3-compatible blob store and a webhook receiver.
// `make cluster` starts it (deploy/cmd/cluster); the chaos run kills its processes.
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/svcplatform/svc/workflows"
)

// Options shape a cluster.
type Options struct {
	// Dir holds the binaries, configuration, logs and the secrets key.
	Dir string
	// Repo is the repository root (svc and the Temporal tools are built from it).
	Repo           string
	APIs, Workers  int
	PGHost, PGUser string
	PGPort         int
	DB, TemporalDB string
	TemporalPort   int
	FirstAPIPort   int
	ReceiverPort   int
	Fresh          bool
	// Env adds to (or overrides) the svc processes' configuration, e.g. a faster webhook ladder.
	Env map[string]string
	Log func(format string, args ...any)
}

// Defaults fills what o leaves empty.
func (o *Options) Defaults() {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	defInt := func(n *int, v int) {
		if *n == 0 {
			*n = v
		}
	}
	def(&o.Dir, ".cluster-data")
	def(&o.Repo, ".")
	def(&o.PGHost, "127.0.0.1")
	def(&o.PGUser, "postgres")
	def(&o.DB, "svc_cluster")
	def(&o.TemporalDB, "temporal_cluster")
	defInt(&o.PGPort, 5432)
	defInt(&o.APIs, 2)
	defInt(&o.Workers, 2)
	defInt(&o.TemporalPort, 17233)
	defInt(&o.FirstAPIPort, 18080)
	if o.Log == nil {
		o.Log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	}
}

// Cluster is a running cluster.
type Cluster struct {
	Options
	Temporal   *Process
	APIs       []*Process
	Workers    []*Process
	APIURLs    []string
	Receiver   *Receiver
	S3Endpoint string
	// Credentials of the organisation the cluster bootstrapped.
	OrgID, APIKey string

	svc     string
	env     map[string]string
	s3      *httptest.Server
	recvSrv *http.Server
}

// SvcEnv is the configuration every svc process of the cluster gets: the keys of the compose
// file's x-svc environment (deploy/compose_test.go keeps the two in step), with loopback
// addresses instead of the compose services' names.
func SvcEnv(o Options, secretsKey, s3Endpoint string) map[string]string {
	return map[string]string{
		"SVC_ENVIRONMENT":        "sandbox",
		"SVC_DATABASE_URL":       fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", o.PGUser, o.PGHost, o.PGPort, o.DB),
		"SVC_TEMPORAL_ADDRESS":   fmt.Sprintf("127.0.0.1:%d", o.TemporalPort),
		"SVC_TEMPORAL_NAMESPACE": "default",
		"SVC_SECRETS_KEY":        secretsKey,
		"SVC_HTTP_PUBLIC_URL":    fmt.Sprintf("http://127.0.0.1:%d", o.FirstAPIPort),
		// The worker's identity screenings go to the first API, on loopback.
		"SVC_IDENTITY_SCREENING_API_URL":     fmt.Sprintf("http://127.0.0.1:%d", o.FirstAPIPort),
		"SVC_IDENTITY_SCREENING_ALLOW_CIDRS": "127.0.0.0/8",
		"SVC_LOG_FORMAT":                     "json",
		"SVC_LOG_LEVEL":                      "info",
		"SVC_BLOBS_BACKEND":                  "s3",
		"SVC_BLOBS_S3_ENDPOINT":              s3Endpoint,
		"SVC_BLOBS_S3_BUCKET":                "svc-uploads",
		"SVC_BLOBS_S3_ACCESS_KEY":            "svc",
		"SVC_BLOBS_S3_SECRET_KEY":            "cluster-s3-secret",
		"SVC_BLOBS_S3_TLS":                   "false",
		// Beyond compose: the receiver and the http nodes' targets are on loopback here.
		"SVC_WEBHOOKS_ALLOW_CIDRS": "127.0.0.0/8",
	}
}

// ClusterOnlyEnv are the SvcEnv keys the compose file does not set, and why.
var ClusterOnlyEnv = map[string]string{
	"SVC_WEBHOOKS_ALLOW_CIDRS": "receivers and http-node targets run on loopback beside the cluster",
}

// Start builds what it needs and starts every process, in order, waiting for each to be ready.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	o.Defaults()
	c := &Cluster{Options: o}
	for _, d := range []string{"bin", "logs", "svc"} {
		if err := os.MkdirAll(filepath.Join(o.Dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	ok := false
	defer func() {
		if !ok {
			c.Stop()
		}
	}()
	if err := c.build(ctx); err != nil {
		return nil, err
	}
	if err := c.databases(ctx); err != nil {
		return nil, err
	}
	if err := c.startTemporal(ctx); err != nil {
		return nil, err
	}
	key, err := c.secretsKey()
	if err != nil {
		return nil, err
	}
	c.startS3()
	if err := c.startReceiver(); err != nil {
		return nil, err
	}
	c.env = SvcEnv(c.Options, key, c.S3Endpoint)
	for k, v := range o.Env {
		c.env[k] = v
	}
	if out, err := c.svcRun(ctx, "migrate"); err != nil {
		return nil, fmt.Errorf("svc migrate: %w\n%s", err, out)
	}
	if err := c.bootstrap(ctx); err != nil {
		return nil, err
	}
	for i := range o.Workers {
		p := newProcess(fmt.Sprintf("worker-%d", i+1), filepath.Join(o.Dir, "logs"), c.envFor(fmt.Sprintf("worker-%d", i+1), ""), c.svc, "worker")
		if err := p.Start(); err != nil {
			return nil, err
		}
		c.Workers = append(c.Workers, p)
	}
	for i := range o.APIs {
		port := o.FirstAPIPort + i
		name := fmt.Sprintf("api-%d", i+1)
		p := newProcess(name, filepath.Join(o.Dir, "logs"), c.envFor(name, fmt.Sprintf("127.0.0.1:%d", port)), c.svc, "api")
		if err := p.Start(); err != nil {
			return nil, err
		}
		c.APIs = append(c.APIs, p)
		c.APIURLs = append(c.APIURLs, fmt.Sprintf("http://127.0.0.1:%d", port))
	}
	for _, u := range c.APIURLs {
		if err := WaitHTTP(ctx, u+"/readyz", 2*time.Minute); err != nil {
			return nil, fmt.Errorf("%s did not become ready (see %s): %w", u, filepath.Join(o.Dir, "logs"), err)
		}
	}
	ok = true
	return c, nil
}

// build compiles svc and the Temporal server and SQL tool from the pinned module (go.mod's
// tool directives), into Dir/bin.
func (c *Cluster) build(ctx context.Context) error {
	bin, _ := filepath.Abs(filepath.Join(c.Dir, "bin"))
	c.svc = filepath.Join(bin, "svc")
	for _, b := range []struct{ out, pkg string }{
		{c.svc, "./cmd/svc"},
		{filepath.Join(bin, "temporal-server"), "go.temporal.io/server/cmd/server"},
		{filepath.Join(bin, "temporal-sql-tool"), "go.temporal.io/server/cmd/tools/sql"},
	} {
		c.Log("building %s", b.pkg)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", b.out, b.pkg)
		cmd.Dir = c.Repo
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %w\n%s", b.pkg, err, out)
		}
	}
	return nil
}

// databases creates the application's and Temporal's databases (dropped first with Fresh),
// and Temporal's schema with the module's SQL tool.
func (c *Cluster) databases(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://%s@%s:%d/postgres?sslmode=disable", c.PGUser, c.PGHost, c.PGPort))
	if err != nil {
		return fmt.Errorf("PostgreSQL at %s:%d: %w (start it: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start)", c.PGHost, c.PGPort, err)
	}
	defer conn.Close(ctx)
	for _, db := range []string{c.DB, c.TemporalDB, c.TemporalDB + "_visibility"} {
		if c.Fresh {
			if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{db}.Sanitize()+" WITH (FORCE)"); err != nil {
				return fmt.Errorf("drop %s: %w", db, err)
			}
		}
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", db).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
				return fmt.Errorf("create %s: %w", db, err)
			}
		}
	}
	tool := filepath.Join(c.Dir, "bin", "temporal-sql-tool")
	for _, s := range []struct{ db, schema string }{
		{c.TemporalDB, "postgresql/v12/temporal"},
		{c.TemporalDB + "_visibility", "postgresql/v12/visibility"},
	} {
		base := []string{"--plugin", "postgres12", "--ep", c.PGHost, "-p", strconv.Itoa(c.PGPort), "-u", c.PGUser, "--db", s.db}
		// setup-schema -v 0.0 creates the version tables (idempotent); update-schema applies
		// every versioned migration not yet applied, from the schemas embedded in the module.
		for _, args := range [][]string{{"setup-schema", "-v", "0.0"}, {"update-schema", "--schema-name", s.schema}} {
			cmd := exec.CommandContext(ctx, tool, append(base, args...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("temporal-sql-tool %s on %s: %w\n%s", args[0], s.db, err, out)
			}
		}
	}
	return nil
}

// startTemporal starts the server and gives the namespace our search attributes.
func (c *Cluster) startTemporal(ctx context.Context) error {
	path, err := writeTemporalConfig(c.Dir, c.Options)
	if err != nil {
		return err
	}
	c.Temporal = newProcess("temporal", filepath.Join(c.Dir, "logs"), nil,
		filepath.Join(c.Dir, "bin", "temporal-server"), "--config-file", path, "--allow-no-auth", "start")
	if err := c.Temporal.Start(); err != nil {
		return err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", c.TemporalPort)
	deadline := time.Now().Add(2 * time.Minute)
	var tc client.Client
	for {
		tc, err = client.Dial(client.Options{HostPort: addr, Namespace: "default"})
		if err == nil {
			_, err = tc.CheckHealth(ctx, &client.CheckHealthRequest{})
		}
		if err == nil {
			break
		}
		if tc != nil {
			tc.Close()
		}
		if time.Now().After(deadline) || !c.Temporal.Running() {
			return fmt.Errorf("temporal server at %s not ready (see %s): %w", addr, c.Temporal.Log(), err)
		}
		time.Sleep(time.Second)
	}
	defer tc.Close()
	return registerNamespace(ctx, tc)
}

// registerNamespace creates the default namespace and our search attributes, once.
func registerNamespace(ctx context.Context, tc client.Client) error {
	_, err := tc.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace: "default", WorkflowExecutionRetentionPeriod: durationpb.New(7 * 24 * time.Hour),
	})
	var exists *serviceerror.NamespaceAlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("register namespace: %w", err)
	}
	attrs := map[string]enumspb.IndexedValueType{}
	for _, name := range workflows.SearchAttributeNames {
		attrs[name] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, err = tc.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: "default", SearchAttributes: attrs})
		var already *serviceerror.AlreadyExists
		if err == nil || errors.As(err, &already) {
			return nil
		}
		// A namespace just registered reaches every service within a few seconds.
		if time.Now().After(deadline) {
			return fmt.Errorf("add search attributes: %w", err)
		}
		time.Sleep(time.Second)
	}
}

// secretsKey is the cluster's secrets key, made once and kept in Dir.
func (c *Cluster) secretsKey() (string, error) {
	path := filepath.Join(c.Dir, "secrets.key")
	if b, err := os.ReadFile(path); err == nil && !c.Fresh {
		return strings.TrimSpace(string(b)), nil
	}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	key := base64.StdEncoding.EncodeToString(raw)
	return key, os.WriteFile(path, []byte(key+"\n"), 0o600)
}

// startS3 serves an S3-compatible bucket in this process: the API and worker processes share
// no directory, as on separate machines.
func (c *Cluster) startS3() {
	backend := s3mem.New()
	_ = backend.CreateBucket("svc-uploads")
	c.s3 = httptest.NewServer(gofakes3.New(backend).Server())
	c.S3Endpoint = strings.TrimPrefix(c.s3.URL, "http://")
}

func (c *Cluster) startReceiver() error {
	c.Receiver = NewReceiver()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", c.ReceiverPort))
	if err != nil {
		return err
	}
	c.Receiver.URL = "http://" + ln.Addr().String()
	c.recvSrv = &http.Server{Handler: c.Receiver, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = c.recvSrv.Serve(ln) }()
	return nil
}

// envFor is the environment of one svc process: its own data directory and listen address.
func (c *Cluster) envFor(name, addr string) []string {
	env := []string{"SVC_DATA_DIR=" + filepath.Join(c.Dir, "svc", name)}
	if addr != "" {
		env = append(env, "SVC_HTTP_ADDR="+addr)
	}
	keys := make([]string, 0, len(c.env))
	for k := range c.env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+c.env[k])
	}
	return env
}

func (c *Cluster) svcRun(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, c.svc, args...)
	cmd.Env = append(os.Environ(), c.envFor("cli", "")...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil {
		return []byte(errOut.String()), err
	}
	return []byte(out.String()), nil
}

// bootstrap creates the cluster's organisation and an admin key, once (kept in Dir).
func (c *Cluster) bootstrap(ctx context.Context) error {
	path := filepath.Join(c.Dir, "credentials.json")
	var creds struct {
		OrgID  string `json:"orgId"`
		APIKey string `json:"apiKey"`
	}
	b, err := os.ReadFile(path)
	if err != nil || c.Fresh {
		out, err := c.svcRun(ctx, "bootstrap", "--org", "Cluster")
		if err != nil {
			return fmt.Errorf("svc bootstrap: %w\n%s", err, out)
		}
		b = out
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return err
		}
	}
	if err := json.Unmarshal(b, &creds); err != nil || creds.APIKey == "" {
		return fmt.Errorf("credentials %s: %v", path, err)
	}
	c.OrgID, c.APIKey = creds.OrgID, creds.APIKey
	return nil
}

// Credentials are what svc bootstrap printed: the organisation, the user and the key bound to it.
type Credentials struct {
	OrgID  string `json:"orgId"`
	UserID string `json:"userId"`
	APIKey string `json:"apiKey"`
}

// Bootstrap runs svc bootstrap with args (e.g. --org, or --org-id with --user and --role) and
// returns what it created.
func (c *Cluster) Bootstrap(ctx context.Context, args ...string) (Credentials, error) {
	var creds Credentials
	out, err := c.svcRun(ctx, append([]string{"bootstrap"}, args...)...)
	if err != nil {
		return creds, fmt.Errorf("svc bootstrap: %w\n%s", err, out)
	}
	if err := json.Unmarshal(out, &creds); err != nil {
		return creds, fmt.Errorf("svc bootstrap printed %q: %w", out, err)
	}
	return creds, nil
}

// Processes lists every child process: the Temporal server, the APIs and the workers.
func (c *Cluster) Processes() []*Process {
	out := []*Process{c.Temporal}
	out = append(out, c.APIs...)
	return append(out, c.Workers...)
}

// DatabaseURL is the application database's URL.
func (c *Cluster) DatabaseURL() string { return c.env["SVC_DATABASE_URL"] }

// Stop stops every process (APIs first, Temporal last) and the in-process servers.
func (c *Cluster) Stop() {
	for _, p := range c.APIs {
		p.Stop(20 * time.Second)
	}
	for _, p := range c.Workers {
		p.Stop(30 * time.Second)
	}
	if c.Temporal != nil {
		c.Temporal.Stop(20 * time.Second)
	}
	if c.recvSrv != nil {
		_ = c.recvSrv.Close()
	}
	if c.s3 != nil {
		c.s3.Close()
	}
}

// WaitHTTP polls url until it answers 200, for at most within.
func WaitHTTP(ctx context.Context, url string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("status %d", res.StatusCode)
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}
