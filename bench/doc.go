// Package bench holds svc's benchmarks. They boot the embedded stack (devstack: Temporal server,
// worker, SQLite), so they live in their own test binary and run only when asked:
//
//	go test ./bench/ -run '^$' -bench WebhookLatency -benchtime 200x
//	go test ./bench/ -run '^$' -bench WebhookFanOut -benchtime 5x
//
// Each benchmark measures svc's path and, in the same run on the same Temporal server, a
// baseline of one empty workflow per delivery, and reports both and their ratio.
package bench
