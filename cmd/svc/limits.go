package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/config"
	"github.com/svcplatform/svc/store"
)

// newLimits is svc limits: the per-organisation arrangements SPEC 8.1 speaks of (a bucket
// "raised per organisation", say evaluate to 20,000/min for transaction monitoring) and the
// organisation's own daily AI token allowance. The API processes apply a change within 30 s
// (their cache of overrides); the worker at the next model step.
func newLimits() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "limits",
		Short: "Show or change an organisation's own rate limits and daily AI token allowance",
	}
	cmd.AddCommand(newLimitsShow(), newLimitsSet(), newLimitsReset())
	return cmd
}

func newLimitsShow() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the organisation's limits as JSON: each bucket's, and the daily AI token allowance",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withOrg(cmd, func(cfg *config.Config, st *store.Store, orgID string) error {
				return printLimits(cmd, cfg, st, orgID)
			})
		},
	}
	limitsFlags(cmd)
	return cmd
}

func newLimitsSet() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "set",
		Short: "Give the organisation its own limit: a bucket's (--bucket, --limit, --window) or the daily AI tokens (--ai-daily-tokens; 0: unlimited)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			var changes []store.LimitChange
			if f.Changed("bucket") || f.Changed("limit") || f.Changed("window") {
				bucket, _ := f.GetString("bucket")
				limit, _ := f.GetInt("limit")
				window, _ := f.GetDuration("window")
				if err := checkBucket(bucket); err != nil {
					return err
				}
				if limit <= 0 {
					return errors.New("--limit must be a positive number of requests")
				}
				if window < time.Second || window%time.Second != 0 {
					return errors.New("--window must be a whole number of seconds, at least 1s (say 1m)")
				}
				changes = append(changes, store.LimitChange{Bucket: bucket, MaxRequests: limit, WindowSeconds: int(window / time.Second)})
			}
			if f.Changed("ai-daily-tokens") {
				tokens, _ := f.GetInt64("ai-daily-tokens")
				if tokens < 0 {
					return errors.New("--ai-daily-tokens cannot be negative (0 means unlimited)")
				}
				changes = append(changes, store.LimitChange{Tokens: tokens})
			}
			if len(changes) == 0 {
				return errors.New("nothing to set: give --bucket with --limit and --window, or --ai-daily-tokens")
			}
			return arrange(cmd, changes)
		},
	}
	limitsFlags(cmd)
	f := cmd.Flags()
	f.String("bucket", "", "rate-limit bucket: "+strings.Join(bucketNames(), ", "))
	f.Int("limit", 0, "requests allowed per window")
	f.Duration("window", time.Minute, "the window, in whole seconds")
	f.Int64("ai-daily-tokens", 0, "the organisation's daily language-model token allowance (0: unlimited)")
	return cmd
}

func newLimitsReset() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reset",
		Short: "Return the organisation to the platform's default: for --bucket, or for --ai-daily-tokens",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			var changes []store.LimitChange
			buckets, _ := f.GetStringSlice("bucket")
			for _, b := range buckets {
				if err := checkBucket(b); err != nil {
					return err
				}
				changes = append(changes, store.LimitChange{Bucket: b, Reset: true})
			}
			if ai, _ := f.GetBool("ai-daily-tokens"); ai {
				changes = append(changes, store.LimitChange{Reset: true})
			}
			if len(changes) == 0 {
				return errors.New("nothing to reset: give --bucket NAME or --ai-daily-tokens")
			}
			return arrange(cmd, changes)
		},
	}
	limitsFlags(cmd)
	cmd.Flags().StringSlice("bucket", nil, "rate-limit buckets to return to their default: "+strings.Join(bucketNames(), ", "))
	cmd.Flags().Bool("ai-daily-tokens", false, "return the daily AI token allowance to config ai.daily_tokens")
	return cmd
}

// arrange applies changes to the organisation of --org-id (audit-logged) and prints its limits.
func arrange(cmd *cobra.Command, changes []store.LimitChange) error {
	return withOrg(cmd, func(cfg *config.Config, st *store.Store, orgID string) error {
		if err := st.ArrangeLimits(cmd.Context(), orgID, cfg.Environment, changes); err != nil {
			return err
		}
		return printLimits(cmd, cfg, st, orgID)
	})
}

// withOrg opens the migrated store and runs fn for the existing organisation of --org-id.
func withOrg(cmd *cobra.Command, fn func(cfg *config.Config, st *store.Store, orgID string) error) error {
	orgID, _ := cmd.Flags().GetString("org-id")
	cfg, st, err := openMigratedStore(cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Orgs.Get(cmd.Context(), orgID); err != nil {
		return fmt.Errorf("organisation %s: %w", orgID, err)
	}
	return fn(cfg, st, orgID)
}

// printLimits prints the organisation's limits: each bucket's and the daily AI token allowance,
// its own or the platform's default.
func printLimits(cmd *cobra.Command, cfg *config.Config, st *store.Store, orgID string) error {
	own, err := st.RateLimits.Overrides(cmd.Context(), orgID)
	if err != nil {
		return err
	}
	out := limitsOutput{OrgID: orgID}
	rules := api.RateLimitsOf(own)
	for _, name := range bucketNames() {
		out.RateLimits = append(out.RateLimits, bucketLimit{Bucket: name, Limit: rules[name].Limit, Window: rules[name].Window.String(),
			Own: slices.ContainsFunc(own, func(o store.RateLimitOverride) bool { return o.Bucket == name })})
	}
	tokens, set, err := st.Automation.DailyTokens(cmd.Context(), orgID)
	if err != nil {
		return err
	}
	if !set {
		tokens = cfg.AI.DailyTokens
	}
	out.AIDailyTokens = tokenLimit{Tokens: tokens, Own: set}
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func limitsFlags(cmd *cobra.Command) {
	cmd.Flags().String("org-id", "", "the organisation (org_…)")
	_ = cmd.MarkFlagRequired("org-id")
	configFlag(cmd, "data-dir", "data_dir")
}

func bucketNames() []string {
	var out []string
	for name := range api.DefaultRateLimits() {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func checkBucket(name string) error {
	if !slices.Contains(bucketNames(), name) {
		return fmt.Errorf("--bucket %q is not a rate-limit bucket (%s)", name, strings.Join(bucketNames(), ", "))
	}
	return nil
}

// limitsOutput is what svc limits prints.
type limitsOutput struct {
	OrgID         string        `json:"orgId"`
	RateLimits    []bucketLimit `json:"rateLimits"`
	AIDailyTokens tokenLimit    `json:"aiDailyTokens"`
}

type bucketLimit struct {
	Bucket string `json:"bucket"`
	Limit  int    `json:"limit"`
	Window string `json:"window"`
	// Own is true for the organisation's own limit, false for the platform's default.
	Own bool `json:"own"`
}

type tokenLimit struct {
	// Tokens is the daily allowance; 0 means unlimited.
	Tokens int64 `json:"tokens"`
	Own    bool  `json:"own"`
}
