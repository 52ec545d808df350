// Command cluster starts svc's multi-process topology on this machine (`make cluster`): the
// machine's PostgreSQL, a Temporal server with PostgreSQL persistence, 2 × svc api, 2 × svc
// worker, an S3-compatible blob store and a webhook receiver; Ctrl-C stops it all.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/svcplatform/svc/deploy/cluster"
)

func main() {
	var o cluster.Options
	flag.StringVar(&o.Dir, "dir", ".cluster-data", "directory of binaries, configuration, logs and credentials")
	flag.IntVar(&o.APIs, "apis", 2, "svc api processes")
	flag.IntVar(&o.Workers, "workers", 2, "svc worker processes")
	flag.BoolVar(&o.Fresh, "fresh", false, "drop the cluster's databases and credentials first")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := cluster.Start(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
	fmt.Printf("svc cluster is up (logs in %s/logs):\n", c.Dir)
	fmt.Printf("  Temporal frontend  127.0.0.1:%d (PostgreSQL %s, visibility %s_visibility)\n", c.TemporalPort, c.TemporalDB, c.TemporalDB)
	for i, u := range c.APIURLs {
		fmt.Printf("  svc api %d          %s\n", i+1, u)
	}
	fmt.Printf("  svc workers        %d\n", len(c.Workers))
	fmt.Printf("  S3 (blobs)         http://%s bucket svc-uploads\n", c.S3Endpoint)
	fmt.Printf("  webhook receiver   %s\n", c.Receiver.URL)
	fmt.Printf("  organisation       %s\n  API key            %s\n", c.OrgID, c.APIKey)
	fmt.Println("Ctrl-C stops it.")
	<-ctx.Done()
	fmt.Println("stopping…")
	c.Stop()
}
