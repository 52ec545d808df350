// Package client is the Go client of the svc API, generated from api/openapi.yaml by
// oapi-codegen (svc.gen.go: every operation and type) plus the hand-written parts that make it
// safe to use: New sets the key and retries as SPEC 7.4 recommends (retry.go), Check turns a
// failure envelope into an *APIError (errors.go), EachOffset and EachCursor walk both list styles as
// iterators (pages.go), and NewExternalID makes POSTs safe to retry (externalid.go).
//
// Webhooks are verified with the receiver package github.com/svcplatform/svc/webhook.
//
// Regenerate with `make generate`; a test fails when svc.gen.go differs from a fresh generation.
package client
