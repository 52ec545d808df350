// Command scale measures executions started per second and webhook deliveries per second,
// against the cluster (deploy/cluster, with -workers svc workers) or against svc dev: the
// same load, through the API, timed at a webhook receiver in this process.
//
//	go run ./deploy/cmd/scale -target cluster -workers 1
//	go run ./deploy/cmd/scale -target dev
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/svcplatform/svc/deploy/chaos"
	"github.com/svcplatform/svc/deploy/cluster"
	"github.com/svcplatform/svc/internal/devstack"
	"github.com/svcplatform/svc/store"
)

func main() {
	target := flag.String("target", "cluster", "cluster or dev")
	workers := flag.Int("workers", 2, "svc worker processes (cluster)")
	n := flag.Int("n", 300, "executions to start")
	clients := flag.Int("clients", 8, "concurrent API clients")
	dir := flag.String("dir", ".cluster-data/scale", "working directory")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var (
		res chaos.Throughput
		err error
	)
	switch *target {
	case "cluster":
		res, err = onCluster(ctx, *dir, *workers, *n, *clients)
	case "dev":
		res, err = onDev(ctx, *dir, *n, *clients)
	default:
		err = fmt.Errorf("-target: cluster or dev, not %q", *target)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
	if *target == "cluster" {
		fmt.Printf("cluster, %d workers: %s\n", *workers, res)
	} else {
		fmt.Printf("svc dev: %s\n", res)
	}
}

// unthrottle lifts the organisation's write limit: the measure is of the platform, not of
// the per-key limit (120 writes a minute).
func unthrottle(ctx context.Context, dbURL, orgID string) error {
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.RateLimits.SetOverride(ctx, store.RateLimitOverride{OrgID: orgID, Bucket: "write", MaxRequests: 1_000_000, WindowSeconds: 60}); err != nil {
		return err
	}
	time.Sleep(6 * time.Second) // the APIs' override caches (auth.key_cache_ttl)
	return nil
}

func onCluster(ctx context.Context, dir string, workers, n, clients int) (chaos.Throughput, error) {
	c, err := cluster.Start(ctx, cluster.Options{Dir: dir, Workers: workers, Fresh: true, DB: "svc_scale", TemporalDB: "temporal_scale"})
	if err != nil {
		return chaos.Throughput{}, err
	}
	defer c.Stop()
	if err := unthrottle(ctx, c.DatabaseURL(), c.OrgID); err != nil {
		return chaos.Throughput{}, err
	}
	return chaos.Measure(ctx, c.APIURLs, c.APIKey, c.Receiver, n, clients)
}

func onDev(ctx context.Context, dir string, n, clients int) (chaos.Throughput, error) {
	data, _ := filepath.Abs(filepath.Join(dir, "dev"))
	_ = os.RemoveAll(data)
	bin, _ := filepath.Abs(filepath.Join(dir, "bin", "svc"))
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/svc").CombinedOutput(); err != nil {
		return chaos.Throughput{}, fmt.Errorf("go build: %v\n%s", err, out)
	}
	port := 18180
	cmd := exec.CommandContext(ctx, bin, "dev", "--data-dir", data)
	cmd.Env = append(os.Environ(), "SVC_HTTP_ADDR=127.0.0.1:"+strconv.Itoa(port), "SVC_TEMPORAL_PORT=17333", "SVC_TEMPORAL_UI_PORT=0", "SVC_LOG_LEVEL=warn")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return chaos.Throughput{}, err
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if res, err := http.Get(base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			return chaos.Throughput{}, fmt.Errorf("svc dev not ready")
		}
		time.Sleep(time.Second)
	}
	b, err := os.ReadFile(filepath.Join(data, devstack.CredentialsFile))
	if err != nil {
		return chaos.Throughput{}, err
	}
	var creds devstack.Credentials
	if err := json.Unmarshal(b, &creds); err != nil {
		return chaos.Throughput{}, err
	}
	if err := unthrottle(ctx, "sqlite:"+filepath.Join(data, "svc.db"), creds.OrgID); err != nil {
		return chaos.Throughput{}, err
	}
	recv := cluster.NewReceiver()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return chaos.Throughput{}, err
	}
	recv.URL = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: recv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	return chaos.Measure(ctx, []string{base}, creds.APIKey, recv, n, clients)
}
