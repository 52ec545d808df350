package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/svcplatform/svc/store"
	"github.com/svcplatform/svc/store/storetest"
)

// envHelperArgs, when set, makes this test binary run `svc` with those arguments (separated by
// newlines) instead of its tests: a real separate process, as an operator's second svc migrate is.
const envHelperArgs = "SVC_TEST_HELPER_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(envHelperArgs); args != "" {
		root := newRoot()
		root.SetArgs(strings.Split(args, "\n"))
		if err := root.Execute(); err != nil {
			fmt.Fprintln(os.Stderr, "svc:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSvcMigrateInSeveralProcesses starts `svc migrate` in several processes at once on one
// database: every one succeeds, and the database ends at the latest version with each migration
// applied exactly once.
func TestSvcMigrateInSeveralProcesses(t *testing.T) {
	const processes = 4
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dir := t.TempDir()
			var env []string
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "SVC_DATABASE_URL=") && !strings.HasPrefix(kv, "SVC_DATA_DIR=") {
					env = append(env, kv)
				}
			}
			env = append(env, "SVC_DATA_DIR="+dir,
				envHelperArgs+"="+strings.Join([]string{"migrate", "--config", filepath.Join("testdata", "empty.yaml")}, "\n"))
			url := "sqlite:" + filepath.Join(dir, "svc.db") // svc's default under --data-dir
			if b.Name == "postgres" {
				url = b.URL
				env = append(env, "SVC_DATABASE_URL="+b.URL)
			}
			outs := make([]string, processes)
			errs := make([]error, processes)
			var wg sync.WaitGroup
			for i := range processes {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = env
				wg.Add(1)
				go func() {
					defer wg.Done()
					out, err := cmd.CombinedOutput()
					outs[i], errs[i] = string(out), err
				}()
			}
			wg.Wait()
			st, err := store.Open(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			latest, err := st.LatestSchemaVersion(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("migrated %s database to schema version %d", b.Name, latest)
			for i := range processes {
				if errs[i] != nil || !strings.Contains(outs[i], want) {
					t.Errorf("process %d: %v\n%s\nwant %q", i, errs[i], outs[i], want)
				}
			}
			var dup []int64
			if err := st.DB.Raw("SELECT version_id FROM goose_db_version GROUP BY version_id HAVING count(*) > 1").Scan(&dup).Error; err != nil {
				t.Fatal(err)
			}
			if len(dup) > 0 {
				t.Fatalf("versions recorded more than once: %v", dup)
			}
		})
	}
}

// TestAPIAndWorkerRefuseAnUnmigratedDatabase: svc api and svc worker stop at once, naming
// svc migrate, instead of serving on a database that lacks the binary's migrations.
func TestAPIAndWorkerRefuseAnUnmigratedDatabase(t *testing.T) {
	t.Setenv("SVC_TEMPORAL_ADDRESS", "127.0.0.1:1") // never dialled: the check comes first
	t.Setenv("SVC_SECRETS_KEY", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	t.Setenv("SVC_DATA_DIR", t.TempDir())
	t.Setenv("SVC_DATABASE_URL", "")
	for _, sub := range []string{"api", "worker"} {
		out, err := run(t, sub, "--config", filepath.Join("testdata", "empty.yaml"))
		if err == nil || !strings.Contains(err.Error(), "run `svc migrate` first") {
			t.Errorf("%s on an unmigrated database: %v\n%s", sub, err, out)
		}
	}
}
