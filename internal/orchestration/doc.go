// Package orchestration is the workflow definition model of the orchestration product:
// the JSON definition, its parser and validator, the expression language and the node kinds.
//
// # Definitions
//
// A definition is a graph of nodes run from its start node (the first node unless "start"
// names another):
//
//	{"start": "fetch", "nodes": [
//	  {"id": "fetch", "kind": "http", "config": {...}, "next": "check"},
//	  {"id": "check", "kind": "condition", "config": {"expression": "steps.fetch.output.status == 200"},
//	   "next": {"then": "review", "else": "failed"}},
//	  {"id": "review", "kind": "human_approval", "config": {...}, "next": {"approve": "done", "reject": "failed"}},
//	  ...]}
//
// "next" is a node id for kinds with one way out and an object of branch names for kinds
// that branch (condition: then and else, both required; human_approval: approve and reject,
// both optional). A node without next ends the run; its output is the execution's output.
// The graph has no cycles, so a run visits each node at most once and its history is
// bounded by the number of nodes (at most MaxNodes): no continue-as-new is needed.
//
// Parse validates everything when a definition is saved and reports all problems at once in
// a *ValidationError keyed by field path ("definition.nodes[2].config.url"), the shape of the
// API's details.fieldErrors.
//
// # Expressions
//
// Expressions are github.com/expr-lang/expr, compiled and type-checked by Parse. They read
// inputs, steps.<nodeId>.output (the output of a node that runs before, checked at save
// time), execution (id, orgId, workflowId, workflowSlug, workflowVersion, externalId,
// startedBy) and now (the workflow's clock). Condition nodes hold a bare expression; other
// configs hold templates, JSON values whose strings may embed "{{ expression }}" (see
// Template). Results are plain JSON values: numbers are float64, objects map[string]any.
//
// # Where evaluation happens
//
// Evaluation is a pure function of Env: builtins that read the clock (now()) or leak Go's
// map order (keys, values, toPairs) are removed or replaced, date() defaults to UTC, and
// loops and memory are bounded. So the Execution workflow evaluates every expression in
// workflow code: transform outputs, condition branches, approval labels and data, and the
// http node's rendered request (method, URL, headers, body). Only the effects run in
// activities: the HTTP call itself (RunHTTPNode gets the rendered HTTPRequest, which also
// shows in the Temporal UI), store writes and event publishing. Parse itself is
// deterministic too, and the workflow re-parses the stored definition when it starts: a
// change to validation or to a kind's semantics that could alter a released definition's
// run must be guarded with workflow.GetVersion in the workflow.
//
// # Kinds
//
// Each kind is one type implementing Kind (kind_*.go), listed once in Builtin. Compile reads
// the kind's config through a ConfigReader and returns a Step; Step.Plan evaluates it and
// returns one of a closed set of Actions (Done, CallHTTP, Sleep, AwaitApproval) that the
// workflow carries out.
package orchestration
