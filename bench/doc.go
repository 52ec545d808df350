// Package bench holds svc's benchmarks. They boot the embedded stack (devstack: Temporal server,
// worker, SQLite), so they live in their own test binary and run only when asked:
//
//	go test ./bench/ -run '^$' -bench WebhookLatency -benchtime 200x
//	go test ./bench/ -run '^$' -bench WebhookFanOut -benchtime 5x
//	go test ./bench/ -run '^$' -bench WebhookReceivers -benchtime 3x   (1/10/100 subscriptions; receivers at once, slow, failing)
//	go test ./bench/ -run '^$' -bench 'ExecutionStarts|ExecutionLatency' -benchtime 160x
//	go test ./bench/ -run '^$' -bench DashboardExecutions -benchtime 300x
//
// Each benchmark measures svc's path and, in the same run on the same Temporal server, a
// baseline (one empty workflow per delivery; the same Execution workflow started with the SDK
// directly), and reports both and their ratio. BenchmarkExecutionLatency also reports where an
// API-started run's time went, read from its history's event times (api-ms, wft-queue-ms,
// wft-run-ms, act-queue-ms, act-run-ms, medians).
package bench
