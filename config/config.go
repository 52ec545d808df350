// Package config holds svc's configuration: one struct, and one table of every key with its default.
//
// Values come, highest precedence first, from command-line flags, SVC_* environment variables
// (dots become underscores: http.addr is SVC_HTTP_ADDR), the YAML file svc.yaml, and the defaults below.
package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/svcplatform/svc/internal/fraud"
)

// Config is the whole configuration of an svc process.
type Config struct {
	Environment string            `mapstructure:"environment"`
	DataDir     string            `mapstructure:"data_dir"`
	HTTP        HTTPConfig        `mapstructure:"http"`
	Database    DatabaseConfig    `mapstructure:"database"`
	Temporal    TemporalConfig    `mapstructure:"temporal"`
	Log         LogConfig         `mapstructure:"log"`
	Secrets     SecretsConfig     `mapstructure:"secrets"`
	RateLimit   RateLimitConfig   `mapstructure:"ratelimit"`
	Idempotency IdempotencyConfig `mapstructure:"idempotency"`
	Webhooks    WebhooksConfig    `mapstructure:"webhooks"`
	Documents   DocumentsConfig   `mapstructure:"documents"`
	Identity    IdentityConfig    `mapstructure:"identity"`
	Auth        AuthConfig        `mapstructure:"auth"`
	AI          AIConfig          `mapstructure:"ai"`
	Blobs       BlobsConfig       `mapstructure:"blobs"`
	Retention   RetentionConfig   `mapstructure:"retention"`
	Reconcile   ReconcileConfig   `mapstructure:"reconcile"`
	Cases       CasesConfig       `mapstructure:"cases"`
	Screening   ScreeningConfig   `mapstructure:"screening"`
	Fraud       FraudConfig       `mapstructure:"fraud"`
}

// FraudConfig configures the anti-fraud fast path.
type FraudConfig struct {
	// RuleBudget bounds the wall-clock time of one version's rules in one decision.
	RuleBudget time.Duration `mapstructure:"rule_budget"`
}

// ScreeningConfig configures the screening product: the default hit threshold and the
// sanctions lists refreshed from files or URLs by a Temporal Schedule.
type ScreeningConfig struct {
	Threshold float64 `mapstructure:"threshold"`
	// Sources are "name|format|location[|alt location|add location]" (see the keys table).
	Sources      []string      `mapstructure:"sources"`
	RefreshEvery time.Duration `mapstructure:"refresh_every"`
	// RescreenBatch is how many monitored customers one rescreen activity screens.
	RescreenBatch int      `mapstructure:"rescreen_batch"`
	AllowCIDRs    []string `mapstructure:"allow_cidrs"`
}

// ReconcileConfig configures the Schedule that ends the records of runs ended outside their
// workflow (terminated in the Temporal UI, timed out).
type ReconcileConfig struct {
	Every    time.Duration `mapstructure:"every"`
	Lookback time.Duration `mapstructure:"lookback"`
}

// RetentionConfig configures the Schedule that prunes what is kept only for a while.
type RetentionConfig struct {
	// Events is how long events and their finished deliveries are kept.
	Events time.Duration `mapstructure:"events"`
	// Files is how long an ended document's file and text are kept (0: for ever).
	Files time.Duration `mapstructure:"files"`
	// FraudVelocity is how long velocity counters and distinct values are kept: at least the
	// longest window, plus how late an event may still be evaluated with its whole history.
	FraudVelocity time.Duration `mapstructure:"fraud_velocity"`
	Every         time.Duration `mapstructure:"every"`
	Batch         int           `mapstructure:"batch"`
}

// BlobsConfig selects where uploaded files are kept: a local directory (documents.blob_dir),
// or an S3-compatible bucket when the API and worker processes share no file system.
type BlobsConfig struct {
	Backend     string `mapstructure:"backend"`
	S3Endpoint  string `mapstructure:"s3_endpoint"`
	S3Bucket    string `mapstructure:"s3_bucket"`
	S3Region    string `mapstructure:"s3_region"`
	S3AccessKey string `mapstructure:"s3_access_key"`
	// S3SecretKey is a secret: never logged.
	S3SecretKey string `mapstructure:"s3_secret_key"`
	S3TLS       bool   `mapstructure:"s3_tls"`
}

// HTTPConfig configures the API listener.
type HTTPConfig struct {
	Addr           string        `mapstructure:"addr"`
	PublicURL      string        `mapstructure:"public_url"`
	MaxBodyBytes   int64         `mapstructure:"max_body_bytes"`
	TrustedProxies []string      `mapstructure:"trusted_proxies"`
	ShutdownGrace  time.Duration `mapstructure:"shutdown_grace"`
	// PprofAddr serves Go's profiles on a listener of its own; empty serves none.
	PprofAddr string `mapstructure:"pprof_addr"`
	// WorkerMetricsAddr serves svc worker's /metrics on a listener of its own; empty serves none.
	WorkerMetricsAddr string `mapstructure:"worker_metrics_addr"`
}

// DatabaseConfig selects the application database.
type DatabaseConfig struct {
	// URL is a postgres:// URL, or empty for the embedded SQLite file under the data directory.
	URL string `mapstructure:"url"`
}

// TemporalConfig says where Temporal is and, for svc dev, how to run the embedded one.
type TemporalConfig struct {
	Address   string        `mapstructure:"address"`
	Namespace string        `mapstructure:"namespace"`
	Port      int           `mapstructure:"port"`
	UIPort    int           `mapstructure:"ui_port"`
	UIURL     string        `mapstructure:"ui_url"`
	Retention time.Duration `mapstructure:"retention"`
}

// LogConfig configures log/slog output.
type LogConfig struct {
	Format string `mapstructure:"format"`
	Level  string `mapstructure:"level"`
}

// SecretsConfig holds the key that encrypts secrets at rest.
type SecretsConfig struct {
	// Key is 32 bytes, base64 (standard encoding). svc dev generates one in the data directory.
	Key string `mapstructure:"key"`
}

// RateLimitConfig configures per-key rate limiting.
type RateLimitConfig struct {
	// Store is "database" (shared by every svc api process) or "memory" (one process only).
	Store string `mapstructure:"store"`
}

// IdempotencyConfig configures externalId de-duplication.
type IdempotencyConfig struct {
	Window time.Duration `mapstructure:"window"`
}

// WebhooksConfig configures webhook delivery.
type WebhooksConfig struct {
	Schedule        []time.Duration `mapstructure:"schedule"`
	ReceiverTimeout time.Duration   `mapstructure:"receiver_timeout"`
	AllowCIDRs      []string        `mapstructure:"allow_cidrs"`
}

// DocumentsConfig configures the document pipeline.
type DocumentsConfig struct {
	MaxUploadBytes  int64         `mapstructure:"max_upload_bytes"`
	Threshold       float64       `mapstructure:"threshold"`
	PasswordTimeout time.Duration `mapstructure:"password_timeout"`
	BlobDir         string        `mapstructure:"blob_dir"`
}

// IdentityConfig configures the identity verification product.
type IdentityConfig struct {
	// Retention is how long an attempt's images and extracted data are kept after it completed.
	Retention time.Duration `mapstructure:"retention"`
	// PurgeEvery is how often the retention Schedule runs.
	PurgeEvery time.Duration `mapstructure:"purge_every"`
	// ScreeningAPIURL is the API the worker calls to screen a verified person through the
	// screening product, with the organisation's service principal key (SPEC 5.6); empty means
	// http.public_url.
	ScreeningAPIURL string `mapstructure:"screening_api_url"`
	// ScreeningAllowCIDRs may be reached despite the SSRF guard (the API on a private network).
	ScreeningAllowCIDRs []string `mapstructure:"screening_allow_cidrs"`
}

// IdentityScreeningURL is the API the identity product's screenings go to: identity.screening_api_url,
// else http.public_url; "" when neither is set (no screening: such policies end in review).
func (c *Config) IdentityScreeningURL() string {
	if c.Identity.ScreeningAPIURL != "" {
		return strings.TrimRight(c.Identity.ScreeningAPIURL, "/")
	}
	return strings.TrimRight(c.HTTP.PublicURL, "/")
}

// CasesConfig configures the cases product: how alerts are gathered into cases, when a case
// falls due, and the regulator endpoint that receives SAR filings.
type CasesConfig struct {
	// GatherWindow: an alert joins its customer's open case opened within it, else opens a new one.
	GatherWindow time.Duration `mapstructure:"gather_window"`
	// GatherEvery is how often the gathering Schedule takes the alerts no case holds yet.
	GatherEvery time.Duration `mapstructure:"gather_every"`
	// DueIn is how long after it opens a case falls due unless a person sets its due date.
	DueIn time.Duration `mapstructure:"due_in"`
	// RegulatorURL receives submitted SAR filings (POST, JSON); empty means filings wait submitted.
	RegulatorURL string `mapstructure:"regulator_url"`
	// RegulatorAllowCIDRs may be reached despite the SSRF guard (a regulator on a private network).
	RegulatorAllowCIDRs []string `mapstructure:"regulator_allow_cidrs"`
	// DeliveryAttempts bounds the tries of one SAR delivery.
	DeliveryAttempts int `mapstructure:"delivery_attempts"`
}

// AuthConfig configures dashboard sessions and the API-key lookup cache.
type AuthConfig struct {
	SessionTTL  time.Duration `mapstructure:"session_ttl"`
	KeyCacheTTL time.Duration `mapstructure:"key_cache_ttl"`
}

// AIConfig configures the language-model provider of the AI automation product.
type AIConfig struct {
	// BaseURL is an OpenAI-compatible API root (e.g. https://api.openai.com/v1, or a local
	// Ollama at http://127.0.0.1:11434/v1); empty means no provider: AI steps fail with
	// "ai not configured".
	BaseURL string `mapstructure:"base_url"`
	Model   string `mapstructure:"model"`
	// APIKey is a secret: never logged.
	APIKey     string   `mapstructure:"api_key"`
	AllowCIDRs []string `mapstructure:"allow_cidrs"`
	// DailyTokens is each organisation's daily token budget; 0 means unlimited.
	DailyTokens int64 `mapstructure:"daily_tokens"`
	// Audit is keep (prompts and answers stored with the step) or redact (sizes only).
	Audit string `mapstructure:"audit"`
}

// Key documents one configuration key: its name, default and meaning.
type Key struct {
	Name    string
	Default any
	Help    string
}

// Env is the environment variable that sets this key.
func (k Key) Env() string {
	return "SVC_" + strings.ToUpper(strings.ReplaceAll(k.Name, ".", "_"))
}

// keys is the one table of every configuration key and its default.
var keys = []Key{
	{"environment", "sandbox", "environment this deployment serves: sandbox or live; keys of the other environment get 403"},
	{"data_dir", "./.svc-data", "directory for everything svc dev keeps (Temporal SQLite file, app database, blobs, credentials)"},
	{"http.addr", "127.0.0.1:8080", "API listen address"},
	{"http.public_url", "", "base URL clients use (default http://<http.addr>)"},
	{"http.max_body_bytes", int64(1 << 20), "JSON body size cap; larger bodies get 413"},
	{"http.trusted_proxies", []string{}, "CIDRs of proxies whose X-Forwarded-For is trusted for the client IP (none by default)"},
	{"http.shutdown_grace", 10 * time.Second, "how long a stopping API drains in-flight requests"},
	{"http.pprof_addr", "", "host:port serving Go's profiles (/debug/pprof/) on a listener of their own, for svc api, svc worker and svc dev; empty (the default) serves none; bind it to loopback"},
	{"http.worker_metrics_addr", "", "host:port serving svc worker's /metrics on a listener of its own (what runs in the worker: AI tokens and latency by organisation and model, Temporal SDK metrics); empty (the default) serves none; svc api and svc dev serve theirs at /metrics"},
	{"database.url", "", "postgres:// URL of the application database; empty means SQLite at <data_dir>/svc.db"},
	{"temporal.address", "", "host:port of an external Temporal frontend; empty in svc dev means the embedded server"},
	{"temporal.namespace", "default", "Temporal namespace"},
	{"temporal.port", 7233, "gRPC port of the embedded Temporal server (svc dev)"},
	{"temporal.ui_port", 8233, "port of the embedded Temporal UI (svc dev)"},
	{"temporal.ui_url", "", "Temporal UI base URL for the run links of GET /api/executions/{id}; empty means http://127.0.0.1:<temporal.ui_port> when svc runs the embedded server, none otherwise"},
	{"temporal.retention", 7 * 24 * time.Hour, "history retention of closed runs in the embedded Temporal (svc dev)"},
	{"log.format", "text", "log format: text or json"},
	{"log.level", "info", "log level: debug, info, warn or error"},
	{"secrets.key", "", "base64 32-byte key encrypting secrets at rest; svc dev generates one under the data directory"},
	{"ratelimit.store", "database", "rate-limit counter store: database (shared by every process) or memory (one process)"},
	{"idempotency.window", 24 * time.Hour, "externalId de-duplication window"},
	{"webhooks.schedule", []time.Duration{0, 10 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour}, "delay before each delivery attempt"},
	{"webhooks.receiver_timeout", 10 * time.Second, "a receiver must answer 2xx within this"},
	{"webhooks.allow_cidrs", []string{}, "CIDRs webhook and http-node targets may reach despite the SSRF guard (svc dev allows loopback)"},
	{"documents.max_upload_bytes", int64(20 << 20), "upload size cap; larger files get 413"},
	{"documents.threshold", 0.80, "confidence at or above which a document is extracted rather than sent to review"},
	{"documents.password_timeout", 7 * 24 * time.Hour, "how long a password-protected document waits for its password"},
	{"documents.blob_dir", "", "directory of uploaded files; empty means <data_dir>/blobs"},
	{"reconcile.every", 5 * time.Minute, "how often the reconciler looks for execution and document runs terminated outside their workflow (e.g. in the Temporal UI) and ends their records"},
	{"reconcile.lookback", 24 * time.Hour, "how far back the reconciler looks for such runs (runs closed within it are checked; checking twice changes nothing)"},
	{"retention.events", 30 * 24 * time.Hour, "how long events and their finished webhook deliveries are kept (deliveries still retrying are kept until they end)"},
	{"retention.files", time.Duration(0), "how long an ended document's uploaded file and read text are kept in the blob store (its record and fields stay); 0 keeps them for ever (identity images have identity.retention)"},
	{"retention.fraud_velocity", 60 * 24 * time.Hour, "how long fraud velocity counters and distinct values are kept; at least the longest window (30 days), the rest is how late an event's occurredAt may be and still count its whole history"},
	{"retention.every", time.Hour, "how often the retention Schedule prunes events, deliveries, expired idempotency records, rate-limit counters, old fraud velocity rows and old document files"},
	{"retention.batch", 500, "rows one prune statement deletes at most (small batches never lock a table for long)"},
	{"blobs.backend", "local", "where uploaded files are kept: local (documents.blob_dir, shared by every process on the machine) or s3 (an S3-compatible bucket, for processes on several machines)"},
	{"blobs.s3_endpoint", "", "host:port of the S3-compatible service (blobs.backend=s3), without a scheme"},
	{"blobs.s3_bucket", "", "bucket of uploaded files (blobs.backend=s3); it must exist"},
	{"blobs.s3_region", "us-east-1", "region of the bucket (blobs.backend=s3)"},
	{"blobs.s3_access_key", "", "access key id of the S3-compatible service"},
	{"blobs.s3_secret_key", "", "secret access key of the S3-compatible service (a secret, never logged)"},
	{"blobs.s3_tls", true, "reach the S3-compatible service over https (false only on loopback or a private network)"},
	{"identity.retention", 90 * 24 * time.Hour, "how long an identity attempt's images and extracted data are kept after it completed; a Temporal Schedule deletes them then"},
	{"identity.purge_every", time.Hour, "how often the identity retention Schedule runs"},
	{"identity.screening_api_url", "", "API base URL the worker calls to screen verified people (POST /api/screenings with the organisation's identity service key); empty means http.public_url, and without either policies with requireScreening end in review (screening_unavailable)"},
	{"identity.screening_allow_cidrs", []string{}, "CIDRs identity.screening_api_url may reach despite the SSRF guard (svc dev: loopback)"},
	{"auth.session_ttl", 12 * time.Hour, "lifetime of a dashboard session cookie after login"},
	{"ai.base_url", "", "OpenAI-compatible chat-completions API root of the AI automation product (e.g. http://127.0.0.1:11434/v1 for Ollama); empty means AI steps fail with \"ai not configured\""},
	{"ai.model", "", "model name sent to ai.base_url"},
	{"ai.api_key", "", "API key of ai.base_url (a secret, never logged); empty sends none"},
	{"ai.allow_cidrs", []string{}, "CIDRs ai.base_url may reach despite the SSRF guard (e.g. 127.0.0.0/8 for a local model server)"},
	{"ai.daily_tokens", int64(0), "each organisation's daily language-model token budget, unless `svc limits` gave it its own; 0 means unlimited"},
	{"ai.audit", "keep", "what a model step keeps for audit: keep (redacted prompt and answer) or redact (sizes only)"},
	{"cases.gather_window", 7 * 24 * time.Hour, "an alert joins its customer's open case if that case opened within this window, else it opens a new case"},
	{"cases.gather_every", 15 * time.Second, "how often the cases gathering Schedule takes the alerts no case holds yet (and starts any case or SAR workflow not started)"},
	{"cases.due_in", 72 * time.Hour, "a new case falls due this long after it opens, unless a person sets its due date; an overdue case raises case.overdue and escalates"},
	{"cases.regulator_url", "", "endpoint that receives submitted SAR filings (POST JSON with the PDF); empty means filings stay submitted until it is set"},
	{"cases.regulator_allow_cidrs", []string{}, "CIDRs cases.regulator_url may reach despite the SSRF guard"},
	{"cases.delivery_attempts", 10, "tries of one SAR delivery to the regulator before it is left submitted with its error"},
	{"screening.threshold", 0.80, "score from which a list entity is a hit when a screening names no threshold"},
	{"screening.sources", []string{}, "sanctions lists every organisation screens against, each name|format|location, format ofac (location sdn.csv, then alt.csv and add.csv locations), un, opensanctions or csv; a location is an http(s) URL or a file path"},
	{"screening.refresh_every", 6 * time.Hour, "how often the screening list refresh Schedule reads every screening.sources list (a new version only when its content changed)"},
	{"screening.rescreen_batch", 500, "monitored customers one rescreen activity screens after a list change"},
	{"screening.allow_cidrs", []string{}, "CIDRs screening.sources URLs may reach despite the SSRF guard (e.g. 127.0.0.0/8 for a local mirror)"},
	{"fraud.rule_budget", 250 * time.Millisecond, "wall-clock time the rules of one rule set version may take in one decision; the rules left are recorded on the decision as not evaluated. It stops a pathological rule set, so it is far above the microseconds 20 rules take: a busy machine's scheduling delays count against it"},
	{"auth.key_cache_ttl", 5 * time.Second, "how long an API process reuses a key lookup; a revocation made through another process takes effect within it (0 disables)"},
}

// Keys lists every configuration key with its default, sorted by name.
func Keys() []Key {
	out := append([]Key(nil), keys...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the key named name.
func Lookup(name string) (Key, bool) {
	for _, k := range keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// Options says where Load reads from besides the environment.
type Options struct {
	// File is a YAML config file; empty means ./svc.yaml if it exists.
	File string
	// Flags are bound to keys by name (a flag named "http-addr" sets http.addr); nil for none.
	Flags *pflag.FlagSet
	// FlagKeys maps flag names to config keys.
	FlagKeys map[string]string
	// Environ, if set, replaces the process environment (for tests), as KEY=VALUE strings.
	Environ []string
}

// Load reads the configuration and validates it; every error names the offending key.
func Load(opts Options) (*Config, error) {
	v := viper.New()
	for _, k := range keys {
		v.SetDefault(k.Name, k.Default)
	}
	env := envMap(opts.Environ)
	file := opts.File
	explicit := file != ""
	if file == "" {
		file = "svc.yaml"
	}
	v.SetConfigFile(file)
	v.SetConfigType("yaml")
	if err := v.MergeInConfig(); err != nil {
		var notFound viper.ConfigFileNotFoundError
		if explicit || !(errors.As(err, &notFound) || isNotExist(err)) {
			return nil, fmt.Errorf("config file %s: %w", file, err)
		}
	}
	// Environment variables win over the file, flags over both (viper's Set overrides).
	for _, k := range keys {
		if val, ok := env[k.Env()]; ok {
			v.Set(k.Name, val)
		}
	}
	if opts.Flags != nil {
		for flag, key := range opts.FlagKeys {
			if f := opts.Flags.Lookup(flag); f != nil && f.Changed {
				v.Set(key, f.Value.String())
			}
		}
	}
	if err := checkUnknown(v); err != nil {
		return nil, err
	}
	var c Config
	for _, k := range keys {
		if err := decodeKey(v, k, &c); err != nil {
			return nil, err
		}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

func isNotExist(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no such file or directory")
}

func envMap(environ []string) map[string]string {
	out := map[string]string{}
	if environ == nil {
		environ = osEnviron()
	}
	for _, kv := range environ {
		if i := strings.IndexByte(kv, '='); i > 0 && strings.HasPrefix(kv, "SVC_") {
			out[kv[:i]] = kv[i+1:]
		}
	}
	return out
}

// checkUnknown rejects keys in the file that svc does not know, so a typo is not silently ignored.
func checkUnknown(v *viper.Viper) error {
	known := map[string]bool{}
	for _, k := range keys {
		known[k.Name] = true
	}
	for _, k := range v.AllKeys() {
		if !known[k] {
			return fmt.Errorf("config: unknown key %q", k)
		}
	}
	return nil
}

// decodeKey decodes one key into its field of c, so an error names exactly that key.
func decodeKey(v *viper.Viper, k Key, c *Config) error {
	field, err := fieldFor(reflect.ValueOf(c).Elem(), strings.Split(k.Name, "."))
	if err != nil {
		return err
	}
	raw := v.Get(k.Name)
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		DecodeHook: mapstructure.ComposeDecodeHookFunc(
			splitHook,
			trimHook,
			mapstructure.StringToTimeDurationHookFunc(),
		),
		WeaklyTypedInput: true,
		Result:           field.Addr().Interface(),
	})
	if err != nil {
		return fmt.Errorf("config: %s: %w", k.Name, err)
	}
	if s, ok := raw.(string); ok && field.Kind() == reflect.Slice && strings.TrimSpace(s) == "" {
		field.Set(reflect.MakeSlice(field.Type(), 0, 0))
		return nil
	}
	if err := dec.Decode(raw); err != nil {
		return fmt.Errorf("config: %s (%s): invalid value %v: %s", k.Name, k.Env(), raw, cleanErr(err))
	}
	return nil
}

// splitHook turns a comma-separated string (from the environment or a flag) into a list of any element type.
func splitHook(from, to reflect.Type, data any) (any, error) {
	s, ok := data.(string)
	if !ok || to.Kind() != reflect.Slice {
		return data, nil
	}
	out := []string{}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out, nil
}

func trimHook(from, to reflect.Type, data any) (any, error) {
	if s, ok := data.(string); ok {
		return strings.TrimSpace(s), nil
	}
	return data, nil
}

func cleanErr(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "error(s) decoding:\n\n* "); i >= 0 {
		msg = msg[i+len("error(s) decoding:\n\n* "):]
	}
	return msg
}

func fieldFor(v reflect.Value, path []string) (reflect.Value, error) {
	for _, part := range path {
		t := v.Type()
		found := false
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).Tag.Get("mapstructure") == part {
				v = v.Field(i)
				found = true
				break
			}
		}
		if !found {
			return reflect.Value{}, fmt.Errorf("config: key %q has no field", strings.Join(path, "."))
		}
	}
	return v, nil
}

// Validate checks values that decode but make no sense; every error names its key.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("config: %s: %s", key, fmt.Sprintf(format, args...)))
	}
	if c.Environment != "sandbox" && c.Environment != "live" {
		bad("environment", "must be sandbox or live, got %q", c.Environment)
	}
	if c.DataDir == "" {
		bad("data_dir", "must not be empty")
	}
	if _, err := netip.ParseAddrPort(c.HTTP.Addr); err != nil && !strings.HasPrefix(c.HTTP.Addr, ":") && !strings.Contains(c.HTTP.Addr, "localhost:") {
		bad("http.addr", "must be host:port, got %q", c.HTTP.Addr)
	}
	if c.HTTP.PublicURL != "" && !isHTTPURL(c.HTTP.PublicURL) {
		bad("http.public_url", "must be an http(s) URL, got %q", c.HTTP.PublicURL)
	}
	if c.Temporal.UIURL != "" && !isHTTPURL(c.Temporal.UIURL) {
		bad("temporal.ui_url", "must be an http(s) URL, got %q", c.Temporal.UIURL)
	}
	if c.HTTP.MaxBodyBytes <= 0 {
		bad("http.max_body_bytes", "must be positive")
	}
	for _, p := range c.HTTP.TrustedProxies {
		if _, err := netip.ParsePrefix(p); err != nil {
			bad("http.trusted_proxies", "%q is not a CIDR", p)
		}
	}
	if c.Database.URL != "" && !strings.HasPrefix(c.Database.URL, "postgres://") && !strings.HasPrefix(c.Database.URL, "postgresql://") && !strings.HasPrefix(c.Database.URL, "sqlite:") {
		bad("database.url", "must be a postgres:// URL or sqlite:<path>")
	}
	if c.Temporal.Namespace == "" {
		bad("temporal.namespace", "must not be empty")
	}
	if c.Temporal.Port <= 0 || c.Temporal.Port > 65535 {
		bad("temporal.port", "must be a port number, got %d", c.Temporal.Port)
	}
	if c.Temporal.UIPort < 0 || c.Temporal.UIPort > 65535 {
		bad("temporal.ui_port", "must be a port number (0 disables the UI), got %d", c.Temporal.UIPort)
	}
	if c.Log.Format != "text" && c.Log.Format != "json" {
		bad("log.format", "must be text or json, got %q", c.Log.Format)
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		bad("log.level", "must be debug, info, warn or error, got %q", c.Log.Level)
	}
	if c.Secrets.Key != "" {
		if b, err := base64.StdEncoding.DecodeString(c.Secrets.Key); err != nil || len(b) != 32 {
			bad("secrets.key", "must be 32 bytes, base64")
		}
	}
	if c.RateLimit.Store != "database" && c.RateLimit.Store != "memory" {
		bad("ratelimit.store", "must be database or memory, got %q", c.RateLimit.Store)
	}
	if c.Reconcile.Every <= 0 || c.Reconcile.Lookback < c.Reconcile.Every {
		bad("reconcile", "every must be positive and lookback at least every")
	}
	if c.Retention.Events <= 0 || c.Retention.Every <= 0 || c.Retention.Batch <= 0 {
		bad("retention", "events, every and batch must be positive")
	}
	if c.Retention.FraudVelocity < fraud.MaxWindow {
		bad("retention.fraud_velocity", "must be at least the longest velocity window, %s, got %s", fraud.MaxWindow, c.Retention.FraudVelocity)
	}
	if c.Retention.Files < 0 || c.Retention.Files > 0 && c.Retention.Files < time.Hour {
		bad("retention.files", "must be 0 (keep for ever) or at least 1h, got %s", c.Retention.Files)
	}
	switch c.Blobs.Backend {
	case "local":
	case "s3":
		if c.Blobs.S3Endpoint == "" || c.Blobs.S3Bucket == "" {
			bad("blobs.backend", "s3 needs blobs.s3_endpoint and blobs.s3_bucket")
		}
	default:
		bad("blobs.backend", "must be local or s3, got %q", c.Blobs.Backend)
	}
	if c.Idempotency.Window <= 0 {
		bad("idempotency.window", "must be positive")
	}
	if len(c.Webhooks.Schedule) == 0 {
		bad("webhooks.schedule", "needs at least one attempt")
	}
	for _, d := range c.Webhooks.Schedule {
		if d < 0 {
			bad("webhooks.schedule", "delays must not be negative")
		}
	}
	if c.Webhooks.ReceiverTimeout <= 0 {
		bad("webhooks.receiver_timeout", "must be positive")
	}
	for _, p := range c.Webhooks.AllowCIDRs {
		if _, err := netip.ParsePrefix(p); err != nil {
			bad("webhooks.allow_cidrs", "%q is not a CIDR", p)
		}
	}
	if c.Fraud.RuleBudget <= 0 {
		bad("fraud.rule_budget", "must be positive")
	}
	if c.Screening.Threshold <= 0 || c.Screening.Threshold > 1 {
		bad("screening.threshold", "must be greater than 0 and at most 1")
	}
	if c.Screening.RefreshEvery < time.Minute || c.Screening.RescreenBatch <= 0 {
		bad("screening", "refresh_every must be at least 1m and rescreen_batch positive")
	}
	for _, src := range c.Screening.Sources {
		if parts := strings.Split(src, "|"); len(parts) < 3 || parts[0] == "" || parts[2] == "" {
			bad("screening.sources", "%q: want name|format|location", src)
		}
	}
	for _, p := range c.Screening.AllowCIDRs {
		if _, err := netip.ParsePrefix(p); err != nil {
			bad("screening.allow_cidrs", "%q is not a CIDR", p)
		}
	}
	if c.Documents.MaxUploadBytes <= 0 {
		bad("documents.max_upload_bytes", "must be positive")
	}
	if c.Identity.Retention < time.Hour {
		bad("identity.retention", "must be at least 1h")
	}
	if c.Identity.PurgeEvery < time.Minute {
		bad("identity.purge_every", "must be at least 1m")
	}
	if c.Documents.Threshold < 0 || c.Documents.Threshold > 1 {
		bad("documents.threshold", "must be between 0 and 1")
	}
	if c.Cases.RegulatorURL != "" && !isHTTPURL(c.Cases.RegulatorURL) {
		bad("cases.regulator_url", "must be an http(s) URL")
	}
	if c.AI.BaseURL != "" && !isHTTPURL(c.AI.BaseURL) {
		bad("ai.base_url", "must be an http(s) URL")
	}
	if c.AI.BaseURL != "" && c.AI.Model == "" {
		bad("ai.model", "must be set with ai.base_url")
	}
	if c.Identity.ScreeningAPIURL != "" && !isHTTPURL(c.Identity.ScreeningAPIURL) {
		bad("identity.screening_api_url", "must be an http(s) URL")
	}
	for _, p := range c.Identity.ScreeningAllowCIDRs {
		if _, err := netip.ParsePrefix(p); err != nil {
			bad("identity.screening_allow_cidrs", "%q is not a CIDR", p)
		}
	}
	for _, p := range c.Cases.RegulatorAllowCIDRs {
		if _, err := netip.ParsePrefix(p); err != nil {
			bad("cases.regulator_allow_cidrs", "%q is not a CIDR", p)
		}
	}
	if c.Cases.GatherEvery < time.Second {
		bad("cases.gather_every", "must be at least 1s, got %s", c.Cases.GatherEvery)
	}
	if c.Cases.DeliveryAttempts < 1 {
		bad("cases.delivery_attempts", "must be at least 1, got %d", c.Cases.DeliveryAttempts)
	}
	for _, p := range c.AI.AllowCIDRs {
		if _, err := netip.ParsePrefix(p); err != nil {
			bad("ai.allow_cidrs", "%q is not a CIDR", p)
		}
	}
	if c.AI.DailyTokens < 0 {
		bad("ai.daily_tokens", "must not be negative")
	}
	if c.AI.Audit != "keep" && c.AI.Audit != "redact" {
		bad("ai.audit", "must be keep or redact, got %q", c.AI.Audit)
	}
	if c.Auth.SessionTTL <= 0 {
		bad("auth.session_ttl", "must be positive")
	}
	if c.Auth.KeyCacheTTL < 0 || c.Auth.KeyCacheTTL > time.Minute {
		bad("auth.key_cache_ttl", "must be between 0 and 1m")
	}
	return errors.Join(errs...)
}

// DatabaseURL is the application database: database.url, or the SQLite file under the data directory.
func (c *Config) DatabaseURL() string {
	if c.Database.URL != "" {
		return c.Database.URL
	}
	return "sqlite:" + c.DataDir + "/svc.db"
}

// BaseURL is the URL clients use to reach the API.
func (c *Config) BaseURL() string {
	if c.HTTP.PublicURL != "" {
		return strings.TrimRight(c.HTTP.PublicURL, "/")
	}
	return "http://" + c.HTTP.Addr
}

// isHTTPURL reports whether s is an absolute http or https URL with a host.
func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// TemporalUIURL is the Temporal UI's base URL: temporal.ui_url, or the embedded UI's when svc
// runs the embedded server (temporal.address empty, temporal.ui_port set); "" when unknown.
func (c *Config) TemporalUIURL() string {
	switch {
	case c.Temporal.UIURL != "":
		return strings.TrimRight(c.Temporal.UIURL, "/")
	case c.Temporal.Address == "" && c.Temporal.UIPort > 0:
		return fmt.Sprintf("http://127.0.0.1:%d", c.Temporal.UIPort)
	}
	return ""
}

// BlobDir is where uploaded files are kept.
func (c *Config) BlobDir() string {
	if c.Documents.BlobDir != "" {
		return c.Documents.BlobDir
	}
	return c.DataDir + "/blobs"
}

// MarkdownTable renders every key as a Markdown table (the README's configuration section).
func MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| key | environment variable | default | meaning |\n|---|---|---|---|\n")
	for _, k := range Keys() {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", k.Name, k.Env(), formatDefault(k.Default), k.Help)
	}
	return b.String()
}

func formatDefault(v any) string {
	switch d := v.(type) {
	case []time.Duration:
		parts := make([]string, len(d))
		for i, x := range d {
			parts[i] = x.String()
		}
		return "`" + strings.Join(parts, ",") + "`"
	case []string:
		if len(d) == 0 {
			return "(none)"
		}
		return "`" + strings.Join(d, ",") + "`"
	case string:
		if d == "" {
			return "(empty)"
		}
	}
	return fmt.Sprintf("`%v`", v)
}
