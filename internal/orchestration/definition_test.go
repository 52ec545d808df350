package orchestration_test

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/svcplatform/svc/internal/orchestration"
)

// linear is a valid three-node definition used as a base by several tests.
const linear = `{"nodes": [
 {"id": "fetch", "kind": "http", "config": {"method": "POST", "url": "https://api.example.com/users/{{ inputs.userId }}",
  "headers": {"Authorization": "Bearer {{ inputs.token }}", "X-Trace": "exe-{{ execution.id }}"},
  "body": {"amount": "{{ inputs.amount }}", "note": "fixed"}, "timeout": "10s", "retry": {"maxAttempts": 5, "backoff": "2s"}},
  "next": "wait"},
 {"id": "wait", "kind": "delay", "config": {"duration": "1h"}, "next": "shape"},
 {"id": "shape", "kind": "transform", "config": {"output": {"status": "{{ steps.fetch.output.status }}", "user": "{{ inputs.userId }}"}}}
]}`

// branching has a condition and an approval whose rejection is routed.
const branching = `{"start": "check", "nodes": [
 {"id": "check", "kind": "condition", "config": {"expression": "inputs.amount > 1000"}, "next": {"then": "review", "else": "auto"}},
 {"id": "review", "kind": "human_approval", "config": {"actionLabel": "Approve {{ inputs.amount }} EUR", "assignTo": "role:reviewer",
  "data": {"amount": "{{ inputs.amount }}"}, "timeout": "48h", "onTimeout": "reject"}, "next": {"approve": "auto", "reject": "declined"}},
 {"id": "auto", "kind": "transform", "config": {"output": {"approved": true, "by": "{{ steps.review.output.actorUserId }}"}}},
 {"id": "declined", "kind": "transform", "config": {"output": {"approved": false}}}
]}`

func TestParseValid(t *testing.T) {
	tests := []struct {
		name  string
		def   string
		start string
		kinds []string
	}{
		{"linear", linear, "fetch", []string{"http", "delay", "transform"}},
		{"branching with explicit start", branching, "check", []string{"condition", "human_approval", "transform", "transform"}},
		{"single node", `{"nodes": [{"id": "only", "kind": "delay", "config": {"duration": "1s"}}]}`, "only", []string{"delay"}},
		{"approval without routes", `{"nodes": [{"id": "a", "kind": "human_approval", "config": {"actionLabel": "ok?", "assignTo": "user:usr_01"}}]}`, "a", []string{"human_approval"}},
		{"http with defaults", `{"nodes": [{"id": "a", "kind": "http", "config": {"url": "http://example.com"}}]}`, "a", []string{"http"}},
		{"null optional fields", `{"start": null, "nodes": [{"id": "a", "kind": "http", "name": null, "next": null, "config": {"url": "https://x.test", "headers": null}}]}`, "a", []string{"http"}},
		{"read a step on one branch only", `{"nodes": [
		 {"id": "a", "kind": "condition", "config": {"expression": "true"}, "next": {"then": "b", "else": "c"}},
		 {"id": "b", "kind": "transform", "config": {"output": {"x": 1}}, "next": "c"},
		 {"id": "c", "kind": "transform", "config": {"output": {"x": "{{ steps.b?.output?.x ?? 0 }}"}}}]}`, "a", []string{"condition", "transform", "transform"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := orchestration.Parse([]byte(tt.def))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if d.Start != tt.start {
				t.Errorf("Start = %q, want %q", d.Start, tt.start)
			}
			var kinds []string
			for _, n := range d.Nodes {
				kinds = append(kinds, n.Kind)
			}
			if fmt.Sprint(kinds) != fmt.Sprint(tt.kinds) {
				t.Errorf("kinds = %v, want %v", kinds, tt.kinds)
			}
		})
	}
}

// node wraps one node's JSON into a definition.
func node(js string) string { return `{"nodes": [` + js + `]}` }

func TestParseInvalid(t *testing.T) {
	httpNode := func(config string) string {
		return node(`{"id": "a", "kind": "http", "config": ` + config + `}`)
	}
	approval := func(config string) string {
		return node(`{"id": "a", "kind": "human_approval", "config": ` + config + `}`)
	}
	tests := []struct {
		name string
		def  string
		// want maps every expected field path to a substring of one of its messages;
		// the error must have exactly these paths.
		want map[string]string
	}{
		// JSON shape
		{"not JSON", `{"nodes": [`, map[string]string{"definition": "invalid JSON"}},
		{"array instead of object", `[]`, map[string]string{"definition": "must be a JSON object"}},
		{"null", `null`, map[string]string{"definition": "must be a JSON object"}},
		{"unknown top-level field", `{"nodes": [{"id": "a", "kind": "delay", "config": {"duration": "1s"}}], "extra": 1}`,
			map[string]string{"definition.extra": "unknown field"}},
		{"nodes missing", `{}`, map[string]string{"definition.nodes": "is required"}},
		{"nodes not an array", `{"nodes": {"id": "a"}}`, map[string]string{"definition.nodes": "must be an array"}},
		{"nodes empty", `{"nodes": []}`, map[string]string{"definition.nodes": "at least one node"}},
		{"too many nodes", tooMany(), map[string]string{"definition.nodes": "at most 200 nodes"}},
		{"too large", `{"nodes": [], "x": "` + strings.Repeat("a", orchestration.MaxDefinitionBytes) + `"}`,
			map[string]string{"definition": "larger than"}},
		{"node not an object", `{"nodes": [42]}`, map[string]string{"definition.nodes[0]": "must be an object"}},
		{"unknown node field", node(`{"id": "a", "kind": "delay", "config": {"duration": "1s"}, "then": "b"}`),
			map[string]string{"definition.nodes[0].then": "unknown field"}},
		{"start not a string", `{"start": 3, "nodes": [{"id": "a", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.start": "must be a node id"}},
		{"start unknown", `{"start": "zzz", "nodes": [{"id": "a", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.start": `no node has the id "zzz"`}},
		{"name not a string", node(`{"id": "a", "name": 1, "kind": "delay", "config": {"duration": "1s"}}`),
			map[string]string{"definition.nodes[0].name": "must be a string"}},

		// ids and kinds
		{"id missing", node(`{"kind": "delay", "config": {"duration": "1s"}}`), map[string]string{"definition.nodes[0].id": "is required"}},
		{"id not a string", node(`{"id": 7, "kind": "delay", "config": {"duration": "1s"}}`), map[string]string{"definition.nodes[0].id": "must be a string"}},
		{"id empty", node(`{"id": "", "kind": "delay", "config": {"duration": "1s"}}`), map[string]string{"definition.nodes[0].id": "must not be empty"}},
		{"id with a dash", node(`{"id": "a-b", "kind": "delay", "config": {"duration": "1s"}}`), map[string]string{"definition.nodes[0].id": "must start with a letter"}},
		{"duplicate id", `{"nodes": [{"id": "a", "kind": "delay", "config": {"duration": "1s"}, "next": "a"}, {"id": "a", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[1].id": `duplicate id "a" (also nodes[0])`}},
		{"kind missing", node(`{"id": "a", "config": {}}`), map[string]string{"definition.nodes[0].kind": "is required"}},
		{"unknown kind", node(`{"id": "a", "kind": "email"}`),
			map[string]string{"definition.nodes[0].kind": `unknown kind "email" (known: ai, condition, delay, http, human_approval, transform)`}},
		{"config not an object", node(`{"id": "a", "kind": "delay", "config": "1s"}`), map[string]string{"definition.nodes[0].config": "must be an object"}},
		{"config missing", node(`{"id": "a", "kind": "delay"}`), map[string]string{"definition.nodes[0].config.duration": "is required"}},
		{"unknown config field", node(`{"id": "a", "kind": "delay", "config": {"duration": "1s", "jitter": "1s"}}`),
			map[string]string{"definition.nodes[0].config.jitter": "unknown field"}},

		// next and the graph
		{"next object on a kind without branches", `{"nodes": [{"id": "a", "kind": "delay", "config": {"duration": "1s"}, "next": {"then": "b"}}, {"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[0].next": "must be a node id"}},
		{"next empty", node(`{"id": "a", "kind": "delay", "config": {"duration": "1s"}, "next": ""}`),
			map[string]string{"definition.nodes[0].next": "must not be empty"}},
		{"dangling next", node(`{"id": "a", "kind": "delay", "config": {"duration": "1s"}, "next": "nowhere"}`),
			map[string]string{"definition.nodes[0].next": `no node has the id "nowhere"`}},
		{"condition without next", node(`{"id": "a", "kind": "condition", "config": {"expression": "true"}}`),
			map[string]string{"definition.nodes[0].next.then": "is required", "definition.nodes[0].next.else": "is required"}},
		{"condition missing else", `{"nodes": [{"id": "a", "kind": "condition", "config": {"expression": "true"}, "next": {"then": "b"}}, {"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[0].next.else": "is required"}},
		{"condition next as a string", `{"nodes": [{"id": "a", "kind": "condition", "config": {"expression": "true"}, "next": "b"}, {"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[0].next": "must be an object with the branches then, else"}},
		{"condition unknown branch", `{"nodes": [{"id": "a", "kind": "condition", "config": {"expression": "true"}, "next": {"then": "b", "else": "b", "maybe": "b"}}, {"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[0].next.maybe": "unknown branch"}},
		{"condition dangling branch", `{"nodes": [{"id": "a", "kind": "condition", "config": {"expression": "true"}, "next": {"then": "b", "else": "c"}}, {"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[0].next.else": `no node has the id "c"`}},
		{"approval branch not a string", `{"nodes": [{"id": "a", "kind": "human_approval", "config": {"actionLabel": "x", "assignTo": "role:r"}, "next": {"approve": 1}}]}`,
			map[string]string{"definition.nodes[0].next.approve": "must be a node id"}},
		{"unreachable node", `{"nodes": [{"id": "a", "kind": "delay", "config": {"duration": "1s"}}, {"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[1]": `unreachable from the start node "a"`}},
		{"self loop", node(`{"id": "a", "kind": "delay", "config": {"duration": "1s"}, "next": "a"}`),
			map[string]string{"definition.nodes[0].next": "creates a cycle: a → a"}},
		{"cycle", `{"nodes": [{"id": "a", "kind": "delay", "config": {"duration": "1s"}, "next": "b"}, {"id": "b", "kind": "condition", "config": {"expression": "true"}, "next": {"then": "c", "else": "a"}}, {"id": "c", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[1].next.else": "creates a cycle: a → b → a"}},

		// expressions
		{"expression syntax", `{"nodes": [{"id": "a", "kind": "condition", "config": {"expression": "inputs.x >"}, "next": {"then": "b", "else": "b"}}, {"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[0].config.expression": "unexpected token"}},
		{"condition not boolean", `{"nodes": [{"id": "a", "kind": "condition", "config": {"expression": "1 + 2"}, "next": {"then": "b", "else": "b"}}, {"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[0].config.expression": "bool"}},
		{"expression empty", `{"nodes": [{"id": "a", "kind": "condition", "config": {"expression": ""}, "next": {"then": "b", "else": "b"}}, {"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[0].config.expression": "must not be empty"}},
		{"expression too long", `{"nodes": [{"id": "a", "kind": "condition", "config": {"expression": "true` + strings.Repeat(" ", orchestration.MaxExpressionLength) + `"}, "next": {"then": "b", "else": "b"}}, {"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[0].config.expression": "longer than"}},
		{"unknown execution field", node(`{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ execution.secret }}"}}}`),
			map[string]string{"definition.nodes[0].config.output.x": "has no field secret"}},
		{"unknown variable", node(`{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ input.x }}"}}}`),
			map[string]string{"definition.nodes[0].config.output.x": "unknown name input"}},
		{"now() is not available", node(`{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ now() }}"}}}`),
			map[string]string{"definition.nodes[0].config.output.x": "not callable"}},
		{"steps of an unknown node", node(`{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ steps.ghost.output }}"}}}`),
			map[string]string{"definition.nodes[0].config.output.x": `steps.ghost: no node has the id "ghost"`}},
		{"steps of its own node", node(`{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ steps.a.output }}"}}}`),
			map[string]string{"definition.nodes[0].config.output.x": "cannot read its own output"}},
		{"steps of a later node", `{"nodes": [{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ steps['b'].output }}"}}, "next": "b"}, {"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[0].config.output.x": `node "b" does not run before "a"`}},
		{"steps of a sibling branch", `{"nodes": [
		 {"id": "a", "kind": "condition", "config": {"expression": "true"}, "next": {"then": "b", "else": "c"}},
		 {"id": "b", "kind": "transform", "config": {"output": {"x": 1}}},
		 {"id": "c", "kind": "transform", "config": {"output": {"y": "{{ steps.b.output.x }}"}}}]}`,
			map[string]string{"definition.nodes[2].config.output.y": `node "b" does not run before "c"`}},
		{"template not closed", node(`{"id": "a", "kind": "transform", "config": {"output": {"x": "{{ inputs.x "}}}`),
			map[string]string{"definition.nodes[0].config.output.x": `"{{" without a closing "}}"`}},
		{"template empty expression", node(`{"id": "a", "kind": "transform", "config": {"output": {"x": ["ok", "a {{ }} b"]}}}`),
			map[string]string{"definition.nodes[0].config.output.x[1]": "empty expression"}},
		{"template stray closing", node(`{"id": "a", "kind": "transform", "config": {"output": {"x": "{inputs.x}}"}}}`),
			map[string]string{"definition.nodes[0].config.output.x": `"}}" without a matching "{{"`}},

		// http
		{"http method", httpNode(`{"method": "TRACE", "url": "https://x.test"}`), map[string]string{"definition.nodes[0].config.method": "must be one of"}},
		{"http method not a string", httpNode(`{"method": 1, "url": "https://x.test"}`), map[string]string{"definition.nodes[0].config.method": "must be a string"}},
		{"http url missing", httpNode(`{}`), map[string]string{"definition.nodes[0].config.url": "is required"}},
		{"http url not a string", httpNode(`{"url": 5}`), map[string]string{"definition.nodes[0].config.url": "must be a string"}},
		{"http url scheme", httpNode(`{"url": "ftp://x.test/file"}`), map[string]string{"definition.nodes[0].config.url": "scheme must be http or https"}},
		{"http url without host", httpNode(`{"url": "https:///path"}`), map[string]string{"definition.nodes[0].config.url": "no host"}},
		{"http templated url scheme", httpNode(`{"url": "file:///{{ inputs.path }}"}`), map[string]string{"definition.nodes[0].config.url": "must start with http:// or https://"}},
		{"http header name", httpNode(`{"url": "https://x.test", "headers": {"Bad Header": "x"}}`), map[string]string{"definition.nodes[0].config.headers.Bad Header": "not a valid header name"}},
		{"http header forbidden", httpNode(`{"url": "https://x.test", "headers": {"Host": "evil.test"}}`), map[string]string{"definition.nodes[0].config.headers.Host": "set by the HTTP client"}},
		{"http header value", httpNode(`{"url": "https://x.test", "headers": {"X-N": 5}}`), map[string]string{"definition.nodes[0].config.headers.X-N": "must be a string"}},
		{"http headers not an object", httpNode(`{"url": "https://x.test", "headers": ["a"]}`), map[string]string{"definition.nodes[0].config.headers": "must be an object"}},
		{"http body on GET", httpNode(`{"url": "https://x.test", "body": {"a": 1}}`), map[string]string{"definition.nodes[0].config.body": "a GET request has no body"}},
		{"http timeout words", httpNode(`{"url": "https://x.test", "timeout": "10 seconds"}`), map[string]string{"definition.nodes[0].config.timeout": "invalid duration"}},
		{"http timeout number", httpNode(`{"url": "https://x.test", "timeout": 10}`), map[string]string{"definition.nodes[0].config.timeout": "must be a duration string"}},
		{"http timeout too long", httpNode(`{"url": "https://x.test", "timeout": "10m"}`), map[string]string{"definition.nodes[0].config.timeout": "between 1s and 5m0s"}},
		{"retry not an object", httpNode(`{"url": "https://x.test", "retry": 3}`), map[string]string{"definition.nodes[0].config.retry": "must be an object"}},
		{"retry zero attempts", httpNode(`{"url": "https://x.test", "retry": {"maxAttempts": 0}}`), map[string]string{"definition.nodes[0].config.retry.maxAttempts": "between 1 and 10"}},
		{"retry too many attempts", httpNode(`{"url": "https://x.test", "retry": {"maxAttempts": 11}}`), map[string]string{"definition.nodes[0].config.retry.maxAttempts": "between 1 and 10"}},
		{"retry fractional attempts", httpNode(`{"url": "https://x.test", "retry": {"maxAttempts": 1.5}}`), map[string]string{"definition.nodes[0].config.retry.maxAttempts": "must be an integer"}},
		{"retry attempts as text", httpNode(`{"url": "https://x.test", "retry": {"maxAttempts": "3"}}`), map[string]string{"definition.nodes[0].config.retry.maxAttempts": "must be an integer"}},
		{"retry backoff", httpNode(`{"url": "https://x.test", "retry": {"backoff": "-1s"}}`), map[string]string{"definition.nodes[0].config.retry.backoff": "between 100ms and 1h0m0s"}},
		{"retry unknown field", httpNode(`{"url": "https://x.test", "retry": {"jitter": true}}`), map[string]string{"definition.nodes[0].config.retry.jitter": "unknown field"}},

		// transform, delay
		{"transform output missing", node(`{"id": "a", "kind": "transform", "config": {}}`), map[string]string{"definition.nodes[0].config.output": "is required"}},
		{"transform output not an object", node(`{"id": "a", "kind": "transform", "config": {"output": "{{ inputs }}"}}`), map[string]string{"definition.nodes[0].config.output": "must be an object"}},
		{"delay zero", node(`{"id": "a", "kind": "delay", "config": {"duration": "0s"}}`), map[string]string{"definition.nodes[0].config.duration": "between 1s and"}},
		{"delay too long", node(`{"id": "a", "kind": "delay", "config": {"duration": "9000h"}}`), map[string]string{"definition.nodes[0].config.duration": "between 1s and"}},

		// human_approval
		{"approval label missing", approval(`{"assignTo": "role:reviewer"}`), map[string]string{"definition.nodes[0].config.actionLabel": "is required"}},
		{"approval label blank", approval(`{"actionLabel": "  ", "assignTo": "role:reviewer"}`), map[string]string{"definition.nodes[0].config.actionLabel": "non-empty string"}},
		{"approval label object", approval(`{"actionLabel": {"a": 1}, "assignTo": "role:reviewer"}`), map[string]string{"definition.nodes[0].config.actionLabel": "non-empty string"}},
		{"approval assignTo missing", approval(`{"actionLabel": "ok?"}`), map[string]string{"definition.nodes[0].config.assignTo": "is required"}},
		{"approval assignTo without kind", approval(`{"actionLabel": "ok?", "assignTo": "reviewer"}`), map[string]string{"definition.nodes[0].config.assignTo": `"role:<role>" or "user:<user id>"`}},
		{"approval assignTo user not an id", approval(`{"actionLabel": "ok?", "assignTo": "user:bob"}`), map[string]string{"definition.nodes[0].config.assignTo": "usr_ id"}},
		{"approval data not an object", approval(`{"actionLabel": "ok?", "assignTo": "role:r", "data": [1]}`), map[string]string{"definition.nodes[0].config.data": "must be an object"}},
		{"approval timeout", approval(`{"actionLabel": "ok?", "assignTo": "role:r", "timeout": "tomorrow"}`), map[string]string{"definition.nodes[0].config.timeout": "invalid duration"}},
		{"approval onTimeout without timeout", approval(`{"actionLabel": "ok?", "assignTo": "role:r", "onTimeout": "reject"}`), map[string]string{"definition.nodes[0].config.onTimeout": "needs a timeout"}},
		{"approval onTimeout value", approval(`{"actionLabel": "ok?", "assignTo": "role:r", "timeout": "1h", "onTimeout": "escalate"}`), map[string]string{"definition.nodes[0].config.onTimeout": `must be "reject"`}},
		{"approval next as a string", `{"nodes": [{"id": "a", "kind": "human_approval", "config": {"actionLabel": "x", "assignTo": "role:r"}, "next": "b"}, {"id": "b", "kind": "delay", "config": {"duration": "1s"}}]}`,
			map[string]string{"definition.nodes[0].next": "must be an object with the branches approve, reject"}},

		// several problems at once are all reported
		{"several problems", `{"nodes": [
		 {"id": "a", "kind": "http", "config": {"url": "ftp://x", "retry": {"maxAttempts": 0}}, "next": "b"},
		 {"id": "b", "kind": "delay", "config": {"duration": "soon"}},
		 {"id": "c", "kind": "magic"}]}`, map[string]string{
			"definition.nodes[0].config.url":               "scheme",
			"definition.nodes[0].config.retry.maxAttempts": "between",
			"definition.nodes[1].config.duration":          "invalid duration",
			"definition.nodes[2].kind":                     "unknown kind",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := orchestration.Parse([]byte(tt.def))
			if err == nil {
				t.Fatalf("Parse accepted the definition (%d nodes)", len(d.Nodes))
			}
			var ve *orchestration.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %T %v is not a *ValidationError", err, err)
			}
			if got, want := sortedPaths(ve.Fields), sortedPaths(tt.want); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("paths = %v, want %v\n%v", got, want, err)
			}
			for path, sub := range tt.want {
				if !strings.Contains(strings.Join(ve.Fields[path], " | "), sub) {
					t.Errorf("%s: %q does not mention %q", path, ve.Fields[path], sub)
				}
			}
		})
	}
}

func sortedPaths[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func tooMany() string {
	var b strings.Builder
	b.WriteString(`{"nodes": [`)
	for i := 0; i <= orchestration.MaxNodes; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": "n%d", "kind": "delay", "config": {"duration": "1s"}}`, i)
	}
	b.WriteString("]}")
	return b.String()
}

func TestValidationErrorMessage(t *testing.T) {
	_, err := orchestration.Parse([]byte(node(`{"id": "a", "kind": "delay", "config": {"duration": "x", "y": 1}}`)))
	want := `validation failed: definition.nodes[0].config.duration: invalid duration "x" (use a form such as "30s", "5m" or "2h"); definition.nodes[0].config.y: unknown field`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant    %s", err, want)
	}
}
