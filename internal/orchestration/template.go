package orchestration

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Template is a JSON value in which strings may hold expressions between "{{" and "}}".
// A string that is exactly one "{{ expr }}" takes the expression's value with its type
// (a number, an object, ...); any other string with expressions is text in which each
// expression is replaced by its value as text (strings as they are, null as nothing,
// other values as JSON). Strings without "{{" and all other JSON values are literal. Object
// keys are literal. An expression cannot contain "}}".
type Template struct {
	root tnode
}

// tnode is one node of a compiled template.
type tnode interface {
	eval(env Env) (any, error)
}

type (
	literalNode struct{ v any }
	exprNode    struct{ e *Expression }
	textNode    struct{ parts []textPart }
	objectNode  struct{ fields []objectField }
	arrayNode   struct{ items []tnode }
)

type textPart struct {
	text string
	e    *Expression
}

type objectField struct {
	key string
	val tnode
}

// templateCompiler compiles templates and collects their problems and step references.
type templateCompiler struct {
	errs FieldErrors
	exps []*Expression
}

// compileTemplate compiles the JSON value raw read from the field at path.
func (c *templateCompiler) compileTemplate(path string, raw json.RawMessage) *Template {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		c.errs.Add(path, "must be JSON: %v", err)
		return nil
	}
	n := c.node(path, v)
	if n == nil {
		return nil
	}
	return &Template{root: n}
}

func (c *templateCompiler) node(path string, v any) tnode {
	switch v := v.(type) {
	case string:
		return c.text(path, v)
	case map[string]any:
		keys := sortedKeysOf(v)
		o := &objectNode{fields: make([]objectField, 0, len(keys))}
		ok := true
		for _, k := range keys {
			n := c.node(path+"."+k, v[k])
			if n == nil {
				ok = false
				continue
			}
			o.fields = append(o.fields, objectField{key: k, val: n})
		}
		if !ok {
			return nil
		}
		return o
	case []any:
		a := &arrayNode{items: make([]tnode, 0, len(v))}
		ok := true
		for i, item := range v {
			n := c.node(path+"["+strconv.Itoa(i)+"]", item)
			if n == nil {
				ok = false
				continue
			}
			a.items = append(a.items, n)
		}
		if !ok {
			return nil
		}
		return a
	default:
		return literalNode{v: v}
	}
}

// text compiles one string; nil when it has errors (recorded at path).
func (c *templateCompiler) text(path, s string) tnode {
	parts, err := splitTemplate(s)
	if err != nil {
		c.errs.Add(path, "%v", err)
		return nil
	}
	if len(parts) == 1 && parts[0].src == "" {
		return literalNode{v: s}
	}
	t := &textNode{}
	ok := true
	for _, p := range parts {
		if p.src == "" {
			t.parts = append(t.parts, textPart{text: p.text})
			continue
		}
		e, err := compileExpression(path, p.src, false)
		if err != nil {
			c.errs.Add(path, "%v", err)
			ok = false
			continue
		}
		c.exps = append(c.exps, e)
		t.parts = append(t.parts, textPart{e: e})
	}
	if !ok {
		return nil
	}
	if len(t.parts) == 1 && t.parts[0].e != nil {
		return exprNode{e: t.parts[0].e}
	}
	return t
}

type rawPart struct {
	text string // literal text, when src is ""
	src  string // expression source
}

// splitTemplate cuts s into literal text and "{{ expression }}" parts. A string that is
// exactly one expression (surrounding spaces allowed) yields that single part.
func splitTemplate(s string) ([]rawPart, error) {
	if !strings.Contains(s, "{{") {
		if strings.Contains(s, "}}") {
			return nil, errors.New(`"}}" without a matching "{{"`)
		}
		return []rawPart{{text: s}}, nil
	}
	var parts []rawPart
	rest := s
	for rest != "" {
		open := strings.Index(rest, "{{")
		if open < 0 {
			if strings.Contains(rest, "}}") {
				return nil, errors.New(`"}}" without a matching "{{"`)
			}
			parts = append(parts, rawPart{text: rest})
			break
		}
		if strings.Contains(rest[:open], "}}") {
			return nil, errors.New(`"}}" without a matching "{{"`)
		}
		if open > 0 {
			parts = append(parts, rawPart{text: rest[:open]})
		}
		end := strings.Index(rest[open+2:], "}}")
		if end < 0 {
			return nil, errors.New(`"{{" without a closing "}}"`)
		}
		src := rest[open+2 : open+2+end]
		if strings.TrimSpace(src) == "" {
			return nil, errors.New(`empty expression "{{ }}"`)
		}
		parts = append(parts, rawPart{src: src})
		rest = rest[open+2+end+2:]
	}
	// "  {{ x }}  " is one expression: surrounding spaces do not turn it into text.
	var exprs []rawPart
	for _, p := range parts {
		if p.src != "" {
			exprs = append(exprs, p)
		} else if strings.TrimSpace(p.text) != "" {
			return parts, nil
		}
	}
	if len(exprs) == 1 {
		return exprs, nil
	}
	return parts, nil
}

// Eval renders the template against env into JSON values.
func (t *Template) Eval(env Env) (any, error) {
	return t.root.eval(env)
}

// Literal returns the template's value when it holds no expression at its top level.
func (t *Template) Literal() (any, bool) {
	l, ok := t.root.(literalNode)
	return l.v, ok
}

// textual reports whether n renders as text: a literal string or a string with expressions.
func textual(n tnode) bool {
	switch n := n.(type) {
	case literalNode:
		_, ok := n.v.(string)
		return ok
	case exprNode, *textNode:
		return true
	}
	return false
}

// literalPrefix returns the text a string template starts with before its first expression.
func (t *Template) literalPrefix() string {
	switch n := t.root.(type) {
	case literalNode:
		s, _ := n.v.(string)
		return s
	case *textNode:
		if n.parts[0].e == nil {
			return n.parts[0].text
		}
	}
	return ""
}

func (n literalNode) eval(Env) (any, error) { return n.v, nil }

func (n exprNode) eval(env Env) (any, error) { return n.e.Eval(env) }

func (n *textNode) eval(env Env) (any, error) {
	var b strings.Builder
	for _, p := range n.parts {
		if p.e == nil {
			b.WriteString(p.text)
			continue
		}
		v, err := p.e.Eval(env)
		if err != nil {
			return nil, err
		}
		b.WriteString(Text(v))
	}
	return b.String(), nil
}

func (n *objectNode) eval(env Env) (any, error) {
	out := make(map[string]any, len(n.fields))
	for _, f := range n.fields {
		v, err := f.val.eval(env)
		if err != nil {
			return nil, err
		}
		out[f.key] = v
	}
	return out, nil
}

func (n *arrayNode) eval(env Env) (any, error) {
	out := make([]any, len(n.items))
	for i, item := range n.items {
		v, err := item.eval(env)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// Text renders a JSON value as text: a string as it is, null as "", anything else as JSON.
func Text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
