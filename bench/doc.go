// Package bench holds svc's benchmarks. They boot the embedded stack (devstack: Temporal server,
// worker, SQLite), so they live in their own test binary and run only when asked:
//
//	go test ./bench/ -run '^$' -bench WebhookLatency -benchtime 200x
//	go test ./bench/ -run '^$' -bench WebhookFanOut -benchtime 5x
//	go test ./bench/ -run '^$' -bench 'ExecutionStarts|ExecutionLatency' -benchtime 160x
//	go test ./bench/ -run '^$' -bench DashboardExecutions -benchtime 300x
//
// Each benchmark measures svc's path and, in the same run on the same Temporal server, a
// baseline (one empty workflow per delivery; the same Execution workflow started with the SDK
// directly), and reports both and their ratio.
package bench
