// Command chaos runs a mixed load against a fresh cluster while it kills every process at
// random (`make chaos`), then prints what it checked; it exits 1 when anything was lost,
// done twice, or answered a 5xx other than 503.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/svcplatform/svc/deploy/chaos"
)

func main() {
	var o chaos.Options
	flag.StringVar(&o.Cluster.Dir, "dir", ".cluster-data/chaos", "the cluster's directory")
	flag.DurationVar(&o.Load, "load", 3*time.Minute, "how long the load and the kills go on")
	flag.DurationVar(&o.Settle, "settle", 5*time.Minute, "how long to wait afterwards for every end state")
	flag.DurationVar(&o.KillEvery, "kill-every", 15*time.Second, "mean time between kills")
	flag.Uint64Var(&o.Seed, "seed", uint64(time.Now().UnixNano()), "random seed (printed, to repeat a run)")
	flag.Parse()
	o.Cluster.DB, o.Cluster.TemporalDB = "svc_chaos", "temporal_chaos"
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Printf("chaos: seed %d, load %s, a kill about every %s\n", o.Seed, o.Load, o.KillEvery)
	rep, err := chaos.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
	fmt.Print(rep)
	if !rep.OK() {
		os.Exit(1)
	}
}
