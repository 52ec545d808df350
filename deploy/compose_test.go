package deploy

import (
	"context"
	"encoding/base64"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"

	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/deploy/cluster"
	"github.com/svcplatform/svc/workflows"
)

const (
	composeFile = "../docker-compose.yml"
	dockerfile  = "../Dockerfile"
	repoRoot    = ".."
)

// testEnv is what a user puts in .env: the two secrets the compose file requires.
func testEnv() map[string]string {
	return map[string]string{
		"POSTGRES_PASSWORD":   "s3cretpassword",
		"MINIO_ROOT_PASSWORD": "m1niopassword",
		"SVC_SECRETS_KEY":     base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef")),
	}
}

// load loads docker-compose.yml the way `docker compose config` does, with env as the only environment.
func load(t *testing.T, env map[string]string) (*types.Project, error) {
	t.Helper()
	var list []string
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	opts, err := cli.NewProjectOptions([]string{composeFile},
		cli.WithWorkingDirectory(repoRoot),
		cli.WithEnv(list),
	)
	if err != nil {
		t.Fatalf("compose options: %v", err)
	}
	return opts.LoadProject(context.Background())
}

func mustLoad(t *testing.T) *types.Project {
	t.Helper()
	p, err := load(t, testEnv())
	if err != nil {
		t.Fatalf("docker-compose.yml does not load: %v", err)
	}
	return p
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestComposeHasTheServices(t *testing.T) {
	p := mustLoad(t)
	if p.Name != "svc" {
		t.Errorf("project name = %q, want svc", p.Name)
	}
	want := []string{"api", "migrate", "minio", "minio-bucket", "postgres", "temporal", "temporal-schema", "temporal-search-attributes", "temporal-ui", "worker"}
	if got := p.ServiceNames(); !slices.Equal(sorted(got), want) {
		t.Errorf("services = %v, want %v", sorted(got), want)
	}
}

func TestComposeRequiresItsSecrets(t *testing.T) {
	for _, missing := range []string{"SVC_SECRETS_KEY", "POSTGRES_PASSWORD", "MINIO_ROOT_PASSWORD"} {
		t.Run(missing, func(t *testing.T) {
			env := testEnv()
			delete(env, missing)
			_, err := load(t, env)
			if err == nil || !strings.Contains(err.Error(), missing) {
				t.Fatalf("loading without %s: err = %v, want an error naming it", missing, err)
			}
		})
	}
}

// configEnvs is the set of SVC_* variables svc reads: one per config key.
func configEnvs() map[string]bool {
	out := map[string]bool{}
	for _, k := range config.Keys() {
		out[k.Env()] = true
	}
	return out
}

var svcVar = regexp.MustCompile(`\bSVC_[A-Z0-9_]+`)

func TestEverySVCVariableIsAConfigKey(t *testing.T) {
	known := configEnvs()
	for _, path := range []string{composeFile, dockerfile} {
		for _, name := range svcVar.FindAllString(readFile(t, path), -1) {
			if !known[name] {
				t.Errorf("%s names %s, which is not a config key (config.Keys)", filepath.Base(path), name)
			}
		}
	}
	p := mustLoad(t)
	for _, s := range p.Services {
		for name := range s.Environment {
			if strings.HasPrefix(name, "SVC_") && !known[name] {
				t.Errorf("service %s sets %s, which is not a config key", s.Name, name)
			}
		}
	}
}

// cliCommands lists the subcommands of cmd/svc, from their `Use:` strings (importing cmd/svc
// would link the whole Temporal server into this test).
func cliCommands(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "cmd", "svc", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("cmd/svc sources: %v", err)
	}
	use := regexp.MustCompile(`Use:\s*"([a-z][a-z-]*)`)
	var out []string
	for _, f := range files {
		for _, m := range use.FindAllStringSubmatch(readFile(t, f), -1) {
			if m[1] != "svc" {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// svcServices are the services built from this repository's Dockerfile.
func svcServices(t *testing.T, p *types.Project) map[string]types.ServiceConfig {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]types.ServiceConfig{}
	for name, s := range p.Services {
		if s.Build == nil {
			continue
		}
		if s.Build.Context != root {
			t.Errorf("service %s builds %s, want the repository root", name, s.Build.Context)
		}
		if s.Build.Dockerfile != "" && s.Build.Dockerfile != "Dockerfile" {
			t.Errorf("service %s builds with %s, want the Dockerfile", name, s.Build.Dockerfile)
		}
		out[name] = s
	}
	return out
}

func TestSvcServicesRunRealCommands(t *testing.T) {
	cmds := cliCommands(t)
	for _, want := range []string{"api", "worker", "migrate"} {
		if !slices.Contains(cmds, want) {
			t.Fatalf("cmd/svc has no %q command (found %v)", want, cmds)
		}
	}
	p := mustLoad(t)
	svcs := svcServices(t, p)
	tests := []struct {
		service  string
		command  string
		replicas int
	}{
		{"migrate", "migrate", 1},
		{"api", "api", 2},
		{"worker", "worker", 1},
	}
	if len(svcs) != len(tests) {
		t.Errorf("services built from the Dockerfile = %v, want migrate, api, worker", sorted(keys(svcs)))
	}
	for _, tt := range tests {
		t.Run(tt.service, func(t *testing.T) {
			s, ok := svcs[tt.service]
			if !ok {
				t.Fatalf("no service %s built from the Dockerfile", tt.service)
			}
			if len(s.Entrypoint) != 0 {
				t.Errorf("entrypoint = %v, want the image's (svc)", s.Entrypoint)
			}
			if len(s.Command) != 1 || s.Command[0] != tt.command {
				t.Errorf("command = %v, want [%s]", s.Command, tt.command)
			}
			if !slices.Contains(cmds, s.Command[0]) {
				t.Errorf("svc has no command %q", s.Command[0])
			}
			if got := s.GetScale(); got != tt.replicas {
				t.Errorf("replicas = %d, want %d", got, tt.replicas)
			}
		})
	}
}

func TestStartOrder(t *testing.T) {
	p := mustLoad(t)
	tests := []struct {
		service   string
		dependsOn string
		condition string
	}{
		{"temporal-schema", "postgres", types.ServiceConditionHealthy},
		{"temporal", "temporal-schema", types.ServiceConditionCompletedSuccessfully},
		{"temporal-search-attributes", "temporal", types.ServiceConditionHealthy},
		{"temporal-ui", "temporal", types.ServiceConditionHealthy},
		{"migrate", "postgres", types.ServiceConditionHealthy},
		{"minio-bucket", "minio", types.ServiceConditionHealthy},
		{"migrate", "minio-bucket", types.ServiceConditionCompletedSuccessfully},
		{"api", "migrate", types.ServiceConditionCompletedSuccessfully},
		{"api", "temporal-search-attributes", types.ServiceConditionCompletedSuccessfully},
		{"worker", "migrate", types.ServiceConditionCompletedSuccessfully},
		{"worker", "temporal-search-attributes", types.ServiceConditionCompletedSuccessfully},
	}
	for _, tt := range tests {
		dep, ok := p.Services[tt.service].DependsOn[tt.dependsOn]
		if !ok || dep.Condition != tt.condition {
			t.Errorf("%s depends on %s with %q, want %q", tt.service, tt.dependsOn, dep.Condition, tt.condition)
		}
	}
	for _, name := range []string{"postgres", "temporal", "minio"} {
		if p.Services[name].HealthCheck == nil || len(p.Services[name].HealthCheck.Test) == 0 {
			t.Errorf("%s has no healthcheck, but others wait for it to be healthy", name)
		}
	}
	for _, name := range []string{"temporal-schema", "temporal-search-attributes", "migrate", "minio-bucket"} {
		if r := p.Services[name].Restart; r != "no" {
			t.Errorf("one-shot %s restarts %q, want no", name, r)
		}
	}
}

// effectiveConfig is the configuration a service's svc process loads: the image's ENV, then the
// service's environment, validated by config.Load itself.
func effectiveConfig(t *testing.T, df *dockerFile, s types.ServiceConfig) *config.Config {
	t.Helper()
	env := map[string]string{}
	for k, v := range df.runtime().env() {
		env[k] = v
	}
	for k, v := range s.Environment {
		if v != nil {
			env[k] = *v
		}
	}
	var list []string
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	cfg, err := config.Load(config.Options{Environ: list})
	if err != nil {
		t.Fatalf("service %s: svc would not start: %v", s.Name, err)
	}
	return cfg
}

func TestSvcServicesConfiguration(t *testing.T) {
	p := mustLoad(t)
	df := parseDockerfile(t, readFile(t, dockerfile))
	pg := p.Services["postgres"]
	pgEnv := func(k string) string {
		if v := pg.Environment[k]; v != nil {
			return *v
		}
		return ""
	}
	minio := p.Services["minio"]
	minioEnv := func(k string) string {
		if v := minio.Environment[k]; v != nil {
			return *v
		}
		return ""
	}
	bucketJob := strings.Join(p.Services["minio-bucket"].Command, " ")
	for name, s := range svcServices(t, p) {
		t.Run(name, func(t *testing.T) {
			cfg := effectiveConfig(t, df, s)

			// The application database is the postgres service's, with its user, password and database.
			u, err := url.Parse(cfg.DatabaseURL())
			if err != nil || u.Scheme != "postgres" {
				t.Fatalf("database URL %q is not a postgres:// URL", cfg.DatabaseURL())
			}
			pw, _ := u.User.Password()
			if u.Hostname() != "postgres" || u.Port() != "5432" || u.User.Username() != pgEnv("POSTGRES_USER") ||
				pw != pgEnv("POSTGRES_PASSWORD") || strings.TrimPrefix(u.Path, "/") != pgEnv("POSTGRES_DB") {
				t.Errorf("database URL %s does not match the postgres service (user %s, db %s)", u.Redacted(), pgEnv("POSTGRES_USER"), pgEnv("POSTGRES_DB"))
			}
			if name == "migrate" {
				return
			}
			// What `svc api` and `svc worker` require (cmd/svc requireDeployment).
			host, port, err := net.SplitHostPort(cfg.Temporal.Address)
			if err != nil || host != "temporal" || port != "7233" {
				t.Errorf("temporal.address = %q, want temporal:7233", cfg.Temporal.Address)
			}
			if cfg.Secrets.Key != testEnv()["SVC_SECRETS_KEY"] {
				t.Errorf("secrets.key is not the SVC_SECRETS_KEY of the environment")
			}
			if cfg.Log.Format != "json" {
				t.Errorf("log.format = %q, want json", cfg.Log.Format)
			}
			if cfg.Temporal.Namespace != "default" {
				t.Errorf("temporal.namespace = %q, want default", cfg.Temporal.Namespace)
			}
			// Uploaded files must be where the API and the workers both reach them: the MinIO
			// service's bucket, with its credentials, the bucket the one-shot job creates.
			host, port, err = net.SplitHostPort(cfg.Blobs.S3Endpoint)
			if cfg.Blobs.Backend != "s3" || err != nil || host != "minio" || port != "9000" {
				t.Errorf("blobs: backend %q at %q, want s3 at minio:9000", cfg.Blobs.Backend, cfg.Blobs.S3Endpoint)
			}
			if cfg.Blobs.S3AccessKey != minioEnv("MINIO_ROOT_USER") || cfg.Blobs.S3SecretKey != minioEnv("MINIO_ROOT_PASSWORD") || cfg.Blobs.S3SecretKey == "" {
				t.Errorf("blobs: the S3 credentials are not the minio service's")
			}
			if cfg.Blobs.S3Bucket == "" || !strings.Contains(bucketJob, "mc mb --ignore-existing svc/"+cfg.Blobs.S3Bucket) {
				t.Errorf("blobs: bucket %q is not the one minio-bucket creates (%s)", cfg.Blobs.S3Bucket, bucketJob)
			}
			if name == "api" {
				checkAPIPorts(t, cfg, s)
				if s.GetScale() > 1 && cfg.RateLimit.Store != "database" {
					t.Errorf("ratelimit.store = %q with %d replicas, want database (shared counters)", cfg.RateLimit.Store, s.GetScale())
				}
				if s.HealthCheck == nil || !strings.Contains(strings.Join(s.HealthCheck.Test, " "), "/healthz") {
					t.Errorf("api healthcheck %v does not probe /healthz", s.HealthCheck)
				}
			}
		})
	}
}

// checkAPIPorts checks that the container listens on the published target port and that every
// replica gets a host port.
func checkAPIPorts(t *testing.T, cfg *config.Config, s types.ServiceConfig) {
	t.Helper()
	_, port, err := net.SplitHostPort(cfg.HTTP.Addr)
	if err != nil {
		t.Fatalf("http.addr %q: %v", cfg.HTTP.Addr, err)
	}
	if host, _, _ := net.SplitHostPort(cfg.HTTP.Addr); host != "0.0.0.0" && host != "" {
		t.Errorf("http.addr = %q: a container must listen on every interface", cfg.HTTP.Addr)
	}
	if len(s.Ports) != 1 {
		t.Fatalf("api ports = %v, want one mapping", s.Ports)
	}
	pc := s.Ports[0]
	if strconv.Itoa(int(pc.Target)) != port {
		t.Errorf("api publishes container port %d, but svc listens on %s", pc.Target, port)
	}
	lo, hi, ok := strings.Cut(pc.Published, "-")
	if !ok {
		hi = lo
	}
	a, err1 := strconv.Atoi(lo)
	b, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil || b-a+1 < s.GetScale() {
		t.Errorf("api host ports %q: want a range with one port per replica (%d)", pc.Published, s.GetScale())
	}
}

var imageTag = regexp.MustCompile(`^[a-z0-9./_-]+:([A-Za-z0-9._-]+)$`)

func TestImagesArePinned(t *testing.T) {
	p := mustLoad(t)
	for name, s := range p.Services {
		if s.Build != nil {
			continue
		}
		m := imageTag.FindStringSubmatch(s.Image)
		if m == nil || m[1] == "latest" {
			t.Errorf("service %s uses image %q: want an explicit tag, not latest", name, s.Image)
		}
	}
	for _, st := range parseDockerfile(t, readFile(t, dockerfile)).stages {
		m := imageTag.FindStringSubmatch(st.image)
		if m == nil || m[1] == "latest" {
			t.Errorf("Dockerfile FROM %q: want an explicit tag, not latest", st.image)
		}
	}
}

// goModVersion is the version of module mod required by go.mod, without the leading v.
func goModVersion(t *testing.T, mod string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(mod) + `\s+v(\S+)`).FindStringSubmatch(readFile(t, filepath.Join(repoRoot, "go.mod")))
	if m == nil {
		t.Fatalf("go.mod does not require %s", mod)
	}
	return m[1]
}

func minor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

func TestTemporalImagesMatchTheModules(t *testing.T) {
	p := mustLoad(t)
	server := goModVersion(t, "go.temporal.io/server")
	ui := goModVersion(t, "github.com/temporalio/ui-server/v2")
	tests := []struct {
		service string
		repo    string
		want    string // the tag's major.minor must match this version's
	}{
		{"temporal", "temporalio/server", server},
		{"temporal-schema", "temporalio/admin-tools", server},
		{"temporal-search-attributes", "temporalio/admin-tools", server},
		{"temporal-ui", "temporalio/ui", ui},
	}
	for _, tt := range tests {
		repo, tag, _ := strings.Cut(p.Services[tt.service].Image, ":")
		if repo != tt.repo || minor(tag) != minor(tt.want) {
			t.Errorf("%s image = %s:%s, want %s:%s.x (go.mod has %s)", tt.service, repo, tag, tt.repo, minor(tt.want), tt.want)
		}
	}
}

func TestTemporalUsesThePostgresService(t *testing.T) {
	p := mustLoad(t)
	env := func(service, key string) string {
		if v := p.Services[service].Environment[key]; v != nil {
			return *v
		}
		return ""
	}
	user, pw := env("postgres", "POSTGRES_USER"), env("postgres", "POSTGRES_PASSWORD")
	tests := []struct {
		service, key, want string
	}{
		{"temporal", "DB", "postgres12"},
		{"temporal", "POSTGRES_SEEDS", "postgres"},
		{"temporal", "POSTGRES_USER", user},
		{"temporal", "POSTGRES_PWD", pw},
		{"temporal", "BIND_ON_IP", "0.0.0.0"},
		{"temporal-schema", "SQL_PLUGIN", "postgres12"},
		{"temporal-schema", "SQL_HOST", "postgres"},
		{"temporal-schema", "SQL_USER", user},
		{"temporal-schema", "SQL_PASSWORD", pw},
		{"temporal-search-attributes", "TEMPORAL_ADDRESS", "temporal:7233"},
		{"temporal-ui", "TEMPORAL_ADDRESS", "temporal:7233"},
	}
	for _, tt := range tests {
		if got := env(tt.service, tt.key); got != tt.want || got == "" {
			t.Errorf("%s %s = %q, want %q", tt.service, tt.key, got, tt.want)
		}
	}
	// The schema job sets up both databases the server's embedded config uses, from the
	// schemas embedded in the tool.
	script := strings.Join(p.Services["temporal-schema"].Command, " ")
	for _, want := range []string{"setup temporal temporal", "setup temporal_visibility visibility", "create-database", "setup-schema", "update-schema"} {
		if !strings.Contains(script, want) {
			t.Errorf("temporal-schema script does not contain %q", want)
		}
	}
	// temporal-server refuses to start without its dynamic config file.
	cfgs := p.Services["temporal"].Configs
	if len(cfgs) != 1 || cfgs[0].Target != "/etc/temporal/config/dynamicconfig/docker.yaml" {
		t.Errorf("temporal configs = %+v, want the dynamic config at the embedded config's default path", cfgs)
	} else if _, ok := p.Configs[cfgs[0].Source]; !ok {
		t.Errorf("config %s is not defined", cfgs[0].Source)
	}
}

func TestSearchAttributesJobRegistersOurs(t *testing.T) {
	p := mustLoad(t)
	s := p.Services["temporal-search-attributes"]
	script := strings.Join(s.Command, " ")
	m := regexp.MustCompile(`for name in ([A-Za-z ]+);`).FindStringSubmatch(script)
	if m == nil {
		t.Fatalf("no `for name in ...;` loop in the script:\n%s", script)
	}
	if got, want := sorted(strings.Fields(m[1])), sorted(workflows.SearchAttributeNames); !slices.Equal(got, want) {
		t.Errorf("registers %v, want workflows.SearchAttributeNames %v", got, want)
	}
	for _, want := range []string{`search-attribute create --namespace "$NAMESPACE" --name "$name" --type Keyword`, "namespace create"} {
		if !strings.Contains(script, want) {
			t.Errorf("script does not contain %q", want)
		}
	}
	// The attributes go into the namespace svc uses.
	df := parseDockerfile(t, readFile(t, dockerfile))
	ns := s.Environment["NAMESPACE"]
	for _, name := range []string{"api", "worker"} {
		if cfg := effectiveConfig(t, df, p.Services[name]); ns == nil || *ns != cfg.Temporal.Namespace {
			t.Errorf("search attributes go to namespace %v, %s uses %q", ns, name, cfg.Temporal.Namespace)
		}
	}
}

func TestDockerfile(t *testing.T) {
	df := parseDockerfile(t, readFile(t, dockerfile))
	if len(df.stages) < 2 {
		t.Fatalf("Dockerfile has %d stages, want a build stage and a runtime stage", len(df.stages))
	}
	build, runtime := df.stages[0], df.runtime()
	if !strings.HasPrefix(build.image, "golang:") {
		t.Errorf("build stage FROM %s, want golang", build.image)
	}
	if build.env()["CGO_ENABLED"] != "0" {
		t.Errorf("build stage CGO_ENABLED = %q, want 0", build.env()["CGO_ENABLED"])
	}
	runs := strings.Join(build.args("RUN"), "\n")
	builds := strings.Contains(runs, "./cmd/svc")
	if strings.Contains(runs, "make build") {
		// The Makefile's build target is the one place the build flags live.
		recipe := makeRecipe(t, readFile(t, filepath.Join(repoRoot, "Makefile")), "build")
		builds = strings.Contains(recipe, "./cmd/svc") && strings.Contains(recipe, `-ldflags "$(LDFLAGS)"`)
	}
	if !builds {
		t.Errorf("build stage does not build ./cmd/svc (directly or with make build):\n%s", runs)
	}
	if !strings.Contains(strings.Join(runtime.args("COPY"), "\n"), "/src/bin/svc") {
		t.Errorf("runtime stage does not copy the built binary")
	}
	if u := runtime.last("USER"); u == "" || u == "root" || strings.HasPrefix(u, "0") {
		t.Errorf("runtime USER = %q, want a non-root user", u)
	}
	if got := runtime.last("EXPOSE"); got != "8080" {
		t.Errorf("EXPOSE %q, want 8080", got)
	}
	if _, port, _ := net.SplitHostPort(runtime.env()["SVC_HTTP_ADDR"]); port != "8080" {
		t.Errorf("SVC_HTTP_ADDR = %q, want the exposed port 8080", runtime.env()["SVC_HTTP_ADDR"])
	}
	if got := runtime.last("ENTRYPOINT"); got != `["svc"]` {
		t.Errorf("ENTRYPOINT %s, want [\"svc\"] (compose passes the command)", got)
	}
}

// substitution matches a shell command substitution $(...) without nested parentheses.
var substitution = regexp.MustCompile(`\$\(([^()]*)\)`)

func TestDockerfileInstallsTheDocumentTools(t *testing.T) {
	want := aptPackages(t)
	runtime := parseDockerfile(t, readFile(t, dockerfile)).runtime()
	installed := map[string]bool{}
	for _, run := range runtime.args("RUN") {
		_, after, ok := strings.Cut(run, "apt-get install")
		if !ok {
			continue
		}
		cmd, _, _ := strings.Cut(after, "&&")
		for _, f := range strings.Fields(substitution.ReplaceAllString(cmd, " ")) {
			if !strings.HasPrefix(f, "-") {
				installed[f] = true
			}
		}
		// The list itself, copied into the image and read by a command substitution on the install
		// line: run that command here on the repository's copy to see what it yields.
		for _, m := range substitution.FindAllStringSubmatch(cmd, -1) {
			for _, c := range runtime.args("COPY") {
				src, dst, ok := strings.Cut(c, " ")
				if !ok || src != aptPackagesPath || !strings.Contains(m[1], dst) {
					continue
				}
				abs, err := filepath.Abs(filepath.Join(repoRoot, src))
				if err != nil {
					t.Fatal(err)
				}
				out, err := exec.Command("sh", "-c", strings.ReplaceAll(m[1], dst, abs)).Output()
				if err != nil {
					t.Fatalf("running the Dockerfile's $(%s): %v", m[1], err)
				}
				for _, f := range strings.Fields(string(out)) {
					installed[f] = true
				}
			}
		}
	}
	for _, p := range want {
		if !installed[p] {
			t.Errorf("the runtime image does not install %s (%s)", p, aptPackagesPath)
		}
	}
}

func TestDockerignoreKeepsWhatTheBuildNeeds(t *testing.T) {
	ignore := strings.Fields(readFile(t, filepath.Join(repoRoot, ".dockerignore")))
	for _, p := range []string{".env", ".git", ".svc-data/"} {
		if !slices.Contains(ignore, p) {
			t.Errorf(".dockerignore does not exclude %s", p)
		}
	}
	for _, p := range ignore {
		for _, needed := range []string{"go.mod", "go.sum", "Makefile", "cmd", "internal", aptPackagesPath} {
			if ok, _ := filepath.Match(strings.TrimSuffix(p, "/"), needed); ok {
				t.Errorf(".dockerignore pattern %q excludes %s, which the build needs", p, needed)
			}
		}
	}
}

// aptPackagesPath is the one list of the programs the documents product shells out to.
const aptPackagesPath = "internal/documents/APT_PACKAGES"

// aptPackages reads aptPackagesPath (one package a line, # comments); the list must exist.
func aptPackages(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(aptPackagesPath)))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// makeRecipe returns the recipe lines of target in a Makefile.
func makeRecipe(t *testing.T, makefile, target string) string {
	t.Helper()
	var out []string
	in := false
	for _, line := range strings.Split(makefile, "\n") {
		switch {
		case strings.HasPrefix(line, target+":"):
			in = true
		case in && strings.HasPrefix(line, "\t"):
			out = append(out, line)
		case in:
			return strings.Join(out, "\n")
		}
	}
	if !in {
		t.Fatalf("Makefile has no %s target", target)
	}
	return strings.Join(out, "\n")
}

// dockerFile is a Dockerfile split into stages of instructions (continuations joined, comments dropped).
type dockerFile struct {
	stages []stage
}

type stage struct {
	image  string
	instrs [][2]string // keyword (upper case), arguments
}

func parseDockerfile(t *testing.T, text string) *dockerFile {
	t.Helper()
	var df dockerFile
	var logical []string
	cur := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur == "") {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur += strings.TrimSuffix(trimmed, "\\") + " "
			continue
		}
		logical = append(logical, cur+trimmed)
		cur = ""
	}
	for _, l := range logical {
		kw, args, _ := strings.Cut(l, " ")
		kw, args = strings.ToUpper(kw), strings.TrimSpace(args)
		if kw == "FROM" {
			image, _, _ := strings.Cut(args, " ")
			df.stages = append(df.stages, stage{image: image})
			continue
		}
		if len(df.stages) == 0 {
			if kw != "ARG" {
				t.Fatalf("Dockerfile: %s before FROM", kw)
			}
			continue
		}
		st := &df.stages[len(df.stages)-1]
		st.instrs = append(st.instrs, [2]string{kw, args})
	}
	if len(df.stages) == 0 {
		t.Fatal("Dockerfile has no FROM")
	}
	return &df
}

// runtime is the final stage: the image compose runs.
func (d *dockerFile) runtime() stage { return d.stages[len(d.stages)-1] }

// args lists the arguments of every instruction kw of the stage.
func (s stage) args(kw string) []string {
	var out []string
	for _, in := range s.instrs {
		if in[0] == kw {
			out = append(out, in[1])
		}
	}
	return out
}

// last is the arguments of the last instruction kw, the one that takes effect.
func (s stage) last(kw string) string {
	a := s.args(kw)
	if len(a) == 0 {
		return ""
	}
	return a[len(a)-1]
}

// env is the stage's ENV, in KEY=VALUE form (values without spaces).
func (s stage) env() map[string]string {
	out := map[string]string{}
	for _, a := range s.args("ENV") {
		for _, kv := range strings.Fields(a) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				out[k] = v
			}
		}
	}
	return out
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestClusterUsesTheComposeConfiguration: `make cluster` (deploy/cluster) gives its svc
// processes the configuration keys the compose file gives its own, with loopback addresses,
// plus the few it documents as its own.
func TestClusterUsesTheComposeConfiguration(t *testing.T) {
	p := mustLoad(t)
	compose := map[string]bool{}
	for k := range p.Services["api"].Environment {
		if strings.HasPrefix(k, "SVC_") && k != "SVC_HTTP_ADDR" {
			compose[k] = true
		}
	}
	env := cluster.SvcEnv(cluster.Options{PGUser: "postgres", PGHost: "127.0.0.1", PGPort: 5432, DB: "svc", TemporalPort: 7233, FirstAPIPort: 8080}, "key", "127.0.0.1:9000")
	for k := range compose {
		if _, ok := env[k]; !ok {
			t.Errorf("the compose file sets %s, the cluster does not", k)
		}
	}
	for k := range env {
		if !compose[k] && cluster.ClusterOnlyEnv[k] == "" {
			t.Errorf("the cluster sets %s, which the compose file does not (and ClusterOnlyEnv does not explain)", k)
		}
	}
	cfgEnv := configEnvs()
	for k := range env {
		if !cfgEnv[k] {
			t.Errorf("%s is not a configuration key", k)
		}
	}
}
