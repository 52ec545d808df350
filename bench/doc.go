// Package bench holds svc's benchmarks. They boot the embedded stack (devstack: Temporal server,
// worker, SQLite), so they live in their own test binary and run only when asked:
//
//	go test ./bench/ -run '^$' -bench WebhookLatency -benchtime 200x
//	go test ./bench/ -run '^$' -bench WebhookFanOut -benchtime 5x
//	go test ./bench/ -run '^$' -bench WebhookReceivers -benchtime 3x   (1/10/100 subscriptions; receivers at once, slow, failing)
//	go test ./bench/ -run '^$' -bench 'ExecutionStarts|ExecutionLatency' -benchtime 160x
//	go test ./bench/ -run '^$' -bench DashboardExecutions -benchtime 300x
//	go test ./bench/ -run '^$' -bench StatementsTextPDF -benchtime 20x
//	go test ./bench/ -run '^$' -bench StatementsScannedPDF -benchtime 4x
//	go test ./bench/ -run '^$' -bench 'DocumentsTextPDF|DocumentsOCRPhoto' -benchtime 20x
//
// The products' engines and hot paths have packages of their own, each with its baseline:
//
//	go test ./bench/authn/ -run '^$' -bench AuthOverhead -benchtime 1x             (authenticated list / same handler without middleware)
//	go test ./bench/fraudevaluate/ -run '^$' -bench Evaluate -benchtime 1x        (POST /api/transactions/evaluate / bare parse-and-insert)
//	go test ./bench/fraudengine/ -run '^$' -bench . -benchtime 3s                 (rule engine per core / the same rules as Go)
//	go test ./bench/fraudhistory/ -run '^$' -bench History -benchtime 300x       (a lookup after 30 days of history / after one day)
//	go test ./bench/screening/ -run '^$' -bench . -benchtime 2000x                (100k-entity list: in process, through the API, rescreens)
//	go test ./bench/statementsengine/ -run '^$' -bench . -benchtime 6x            (statement pages per minute, engine alone)
//
// Run them one at a time on a quiet machine: with two cores, a concurrent build halves any figure.
//
// Each benchmark measures svc's path and, in the same run on the same Temporal server, a
// baseline (one empty workflow per delivery; the same Execution workflow started with the SDK
// directly), and reports both and their ratio. BenchmarkExecutionLatency also reports where an
// API-started run's time went, read from its history's event times (api-ms, wft-queue-ms,
// wft-run-ms, act-queue-ms, act-run-ms, medians).
package bench
