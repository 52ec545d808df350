// Command svc runs the svc platform: `svc dev` for everything in one process, `svc api`,
// `svc worker` and `svc migrate` for a real deployment, `svc bootstrap` for first credentials.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRoot().ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "svc:", err)
		os.Exit(1)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "svc",
		Short:         "svc: workflow orchestration, document intelligence and webhooks on Temporal",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String("config", "", "YAML config file (default ./svc.yaml if present)")
	root.AddCommand(newDev(), newAPI(), newWorker(), newMigrate(), newBootstrap(), newLimits(), newVersion())
	return root
}
