package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func load(t *testing.T, environ []string, yaml string) (*Config, error) {
	t.Helper()
	file := os.DevNull
	if yaml != "" {
		file = filepath.Join(t.TempDir(), "svc.yaml")
		if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return Load(Options{File: file, Environ: append([]string{"HOME=/nowhere"}, environ...)})
}

func TestDefaults(t *testing.T) {
	c, err := load(t, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Environment != "sandbox" || c.HTTP.Addr != "127.0.0.1:8080" || c.DataDir != "./.svc-data" {
		t.Fatalf("defaults: %+v", c)
	}
	want := []time.Duration{0, 10 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour}
	if !reflect.DeepEqual(c.Webhooks.Schedule, want) {
		t.Fatalf("webhook schedule default = %v, want SPEC 6.6's %v", c.Webhooks.Schedule, want)
	}
	if c.Idempotency.Window != 24*time.Hour || c.Webhooks.ReceiverTimeout != 10*time.Second || c.Documents.Threshold != 0.80 {
		t.Fatalf("spec constants: %+v", c)
	}
	if c.DatabaseURL() != "sqlite:./.svc-data/svc.db" || c.BaseURL() != "http://127.0.0.1:8080" {
		t.Fatalf("derived: %s %s", c.DatabaseURL(), c.BaseURL())
	}
}

func TestEveryKeyHasAFieldAndDefault(t *testing.T) {
	var c Config
	for _, k := range Keys() {
		f, err := fieldFor(reflect.ValueOf(&c).Elem(), strings.Split(k.Name, "."))
		if err != nil {
			t.Errorf("%s: %v", k.Name, err)
			continue
		}
		if k.Help == "" {
			t.Errorf("%s has no help text", k.Name)
		}
		if k.Default == nil {
			t.Errorf("%s has no default", k.Name)
		} else if dt := reflect.TypeOf(k.Default); f.Kind() != reflect.Slice && dt.Kind() != f.Kind() {
			t.Errorf("%s default is %s, field is %s", k.Name, dt, f.Type())
		}
	}
	// And every leaf field of Config has a key, so nothing is configurable by accident or not at all.
	var walk func(reflect.Type, string)
	names := map[string]bool{}
	for _, k := range Keys() {
		names[k.Name] = true
	}
	walk = func(t2 reflect.Type, prefix string) {
		for i := 0; i < t2.NumField(); i++ {
			f := t2.Field(i)
			name := prefix + f.Tag.Get("mapstructure")
			if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(time.Time{}) {
				walk(f.Type, name+".")
				continue
			}
			if !names[name] {
				t.Errorf("field %s has no key in the keys table", name)
			}
		}
	}
	walk(reflect.TypeOf(Config{}), "")
}

func TestFileThenEnvironmentThenFlags(t *testing.T) {
	yaml := "environment: live\nhttp:\n  addr: 127.0.0.1:9000\nwebhooks:\n  schedule: [0s, 1s, 2s]\ndocuments:\n  threshold: 0.9\n"
	c, err := load(t, nil, yaml)
	if err != nil {
		t.Fatal(err)
	}
	if c.Environment != "live" || c.HTTP.Addr != "127.0.0.1:9000" || c.Documents.Threshold != 0.9 {
		t.Fatalf("file values not applied: %+v", c)
	}
	if !reflect.DeepEqual(c.Webhooks.Schedule, []time.Duration{0, time.Second, 2 * time.Second}) {
		t.Fatalf("schedule from file = %v", c.Webhooks.Schedule)
	}

	c, err = load(t, []string{"SVC_HTTP_ADDR=127.0.0.1:9100", "SVC_WEBHOOKS_SCHEDULE=0s,5s", "SVC_WEBHOOKS_ALLOW_CIDRS=127.0.0.0/8, ::1/128"}, yaml)
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Addr != "127.0.0.1:9100" {
		t.Fatalf("environment must win over the file: %s", c.HTTP.Addr)
	}
	if c.Environment != "live" {
		t.Fatalf("file value lost: %s", c.Environment)
	}
	if !reflect.DeepEqual(c.Webhooks.Schedule, []time.Duration{0, 5 * time.Second}) || !reflect.DeepEqual(c.Webhooks.AllowCIDRs, []string{"127.0.0.0/8", "::1/128"}) {
		t.Fatalf("lists from env: %v %v", c.Webhooks.Schedule, c.Webhooks.AllowCIDRs)
	}

	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("http-addr", "", "")
	if err := fs.Parse([]string{"--http-addr=127.0.0.1:9200"}); err != nil {
		t.Fatal(err)
	}
	c, err = Load(Options{File: os.DevNull, Environ: []string{"SVC_HTTP_ADDR=127.0.0.1:9100"}, Flags: fs, FlagKeys: map[string]string{"http-addr": "http.addr"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Addr != "127.0.0.1:9200" {
		t.Fatalf("flags must win over the environment: %s", c.HTTP.Addr)
	}
}

func TestBadValuesNameTheKey(t *testing.T) {
	cases := []struct {
		env, yaml, key string
	}{
		{env: "SVC_ENVIRONMENT=staging", key: "environment"},
		{env: "SVC_HTTP_MAX_BODY_BYTES=lots", key: "http.max_body_bytes"},
		{env: "SVC_WEBHOOKS_SCHEDULE=0s,soon", key: "webhooks.schedule"},
		{env: "SVC_WEBHOOKS_SCHEDULE=0s,-1s", key: "webhooks.schedule"},
		{env: "SVC_WEBHOOKS_ALLOW_CIDRS=10.0.0.0/33", key: "webhooks.allow_cidrs"},
		{env: "SVC_TEMPORAL_PORT=70000", key: "temporal.port"},
		{env: "SVC_DOCUMENTS_THRESHOLD=1.5", key: "documents.threshold"},
		{env: "SVC_DATABASE_URL=mysql://x", key: "database.url"},
		{env: "SVC_SECRETS_KEY=c2hvcnQ=", key: "secrets.key"},
		{env: "SVC_LOG_FORMAT=xml", key: "log.format"},
		{env: "SVC_IDEMPOTENCY_WINDOW=0s", key: "idempotency.window"},
		{env: "SVC_RETENTION_FRAUD_VELOCITY=168h", key: "retention.fraud_velocity"},
		{env: "SVC_HTTP_ADDR=nonsense", key: "http.addr"},
		{env: "SVC_TEMPORAL_UI_URL=ftp://ui", key: "temporal.ui_url"},
		{env: "SVC_AI_BASE_URL=ollama:11434", key: "ai.base_url"},
		{env: "SVC_AI_ALLOW_CIDRS=127.0.0.1", key: "ai.allow_cidrs"},
		{env: "SVC_AI_DAILY_TOKENS=-5", key: "ai.daily_tokens"},
		{env: "SVC_AI_AUDIT=sometimes", key: "ai.audit"},
		{yaml: "http:\n  adr: 1\n", key: "http.adr"},
		{yaml: "temporal:\n  port: [1, 2]\n", key: "temporal.port"},
		{yaml: "environment: [\n", key: "svc.yaml"},
	}
	for _, tc := range cases {
		var env []string
		if tc.env != "" {
			env = []string{tc.env}
		}
		_, err := load(t, env, tc.yaml)
		if err == nil {
			t.Errorf("%q %q: no error", tc.env, tc.yaml)
			continue
		}
		if !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%q %q: error %q does not name %s", tc.env, tc.yaml, err, tc.key)
		}
	}
}

func TestTemporalUIURL(t *testing.T) {
	cases := []struct {
		env  []string
		want string
	}{
		{nil, "http://127.0.0.1:8233"},
		{[]string{"SVC_TEMPORAL_UI_PORT=9000"}, "http://127.0.0.1:9000"},
		{[]string{"SVC_TEMPORAL_UI_PORT=0"}, ""},
		{[]string{"SVC_TEMPORAL_ADDRESS=temporal:7233"}, ""},
		{[]string{"SVC_TEMPORAL_ADDRESS=temporal:7233", "SVC_TEMPORAL_UI_URL=https://temporal.example.com/"}, "https://temporal.example.com"},
	}
	for _, tc := range cases {
		c, err := load(t, tc.env, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := c.TemporalUIURL(); got != tc.want {
			t.Errorf("%v: TemporalUIURL() = %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestMissingExplicitFileIsAnError(t *testing.T) {
	_, err := Load(Options{File: filepath.Join(t.TempDir(), "absent.yaml"), Environ: []string{}})
	if err == nil || !strings.Contains(err.Error(), "absent.yaml") {
		t.Fatalf("err = %v", err)
	}
}
