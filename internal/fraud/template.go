package fraud

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"
)

// MaxExplanationLength caps an explanation template, in bytes.
const MaxExplanationLength = 1000

// explanation is a compiled explanation template: text with {{ expression }} holes, such as
// "{{ velocity.customer.count_1h }} payments in the last hour".
type explanation struct {
	texts []string   // len(texts) == len(holes)+1
	holes []*program // each hole's expression
}

// compileExplanation compiles a template; "" gives an empty explanation.
func compileExplanation(src string, knownLists []string) (*explanation, error) {
	if len(src) > MaxExplanationLength {
		return nil, fmt.Errorf("is longer than %d bytes", MaxExplanationLength)
	}
	e := &explanation{}
	rest := src
	for {
		open := strings.Index(rest, "{{")
		if open < 0 {
			e.texts = append(e.texts, rest)
			return e, nil
		}
		closing := strings.Index(rest[open:], "}}")
		if closing < 0 {
			return nil, errors.New("has a '{{' without its '}}'")
		}
		p, err := compileExpr(rest[open+2:open+closing], false, knownLists)
		if err != nil {
			return nil, fmt.Errorf("{{%s}}: %v", rest[open+2:open+closing], err)
		}
		e.texts = append(e.texts, rest[:open])
		e.holes = append(e.holes, p)
		rest = rest[open+closing+2:]
	}
}

// render fills the holes; a hole that fails shows its error instead of a value.
func (e *explanation) render(machine *vm.VM, env any) string {
	if len(e.holes) == 0 {
		return e.texts[0]
	}
	var b strings.Builder
	for i, h := range e.holes {
		b.WriteString(e.texts[i])
		v, err := h.run(machine, env)
		if err != nil {
			b.WriteString("[error: " + err.Error() + "]")
			continue
		}
		b.WriteString(formatValue(v))
	}
	b.WriteString(e.texts[len(e.holes)])
	return b.String()
}

// formatValue renders a value for an explanation: numbers without exponent noise, times in
// RFC 3339, anything else as JSON.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		return strconv.Itoa(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// jsonValue makes a value read by a rule safe to store as JSON evidence.
// reportable says whether a value read by a rule can be kept as JSON evidence: a function
// (a method named without calling it) or a channel cannot, and would fail the decision's write.
func reportable(v any) bool {
	switch reflect.ValueOf(v).Kind() {
	case reflect.Func, reflect.Chan, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return false
	}
	return true
}

func jsonValue(v any) any {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case float64:
		if x != x || x > 1e308 || x < -1e308 {
			return formatValue(x)
		}
	}
	return v
}
