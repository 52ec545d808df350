// Package statemachine holds the one transition table of each resource with states: which moves
// are allowed, the 409 error of a forbidden one (SPEC 3.5), the states a conditional write may
// start from, and the Mermaid diagram that docs/state-machines.md is generated from.
package statemachine

import (
	"fmt"
	"slices"
	"strings"
)

// ConflictError is a forbidden move; its message is SPEC 3.5's
// `state conflict: cannot transition X → Y`.
type ConflictError struct {
	From, To string
}

func (c *ConflictError) Error() string {
	return fmt.Sprintf("state conflict: cannot transition %s → %s", c.From, c.To)
}

// Move is one allowed transition and what causes it (shown on the diagram's arrow).
type Move[S ~string] struct {
	From, To S
	// By names what moves the resource (an endpoint, a workflow step, a timer).
	By string
}

// Table is a resource's states and allowed moves.
type Table[S ~string] struct {
	// Name is the resource, e.g. "execution".
	Name    string
	initial S
	states  []S
	moves   []Move[S]
	next    map[S][]S
}

// New builds a table. initial is where a new resource starts; every state must appear in
// states, in the order the diagram lists them. It panics on a move naming an unknown state:
// tables are package-level values, so a typo fails the first test that loads the package.
func New[S ~string](name string, initial S, states []S, moves ...Move[S]) *Table[S] {
	t := &Table[S]{Name: name, initial: initial, states: states, moves: moves, next: map[S][]S{}}
	for _, m := range moves {
		if !slices.Contains(states, m.From) || !slices.Contains(states, m.To) {
			panic(fmt.Sprintf("statemachine %s: move %s → %s names an unknown state", name, m.From, m.To))
		}
		if !slices.Contains(t.next[m.From], m.To) {
			t.next[m.From] = append(t.next[m.From], m.To)
		}
	}
	if !slices.Contains(states, initial) {
		panic(fmt.Sprintf("statemachine %s: unknown initial state %s", name, initial))
	}
	return t
}

// Initial is the state a new resource starts in.
func (t *Table[S]) Initial() S { return t.initial }

// States lists every state, in the table's order.
func (t *Table[S]) States() []S { return slices.Clone(t.states) }

// Names lists every state as a string, in the table's order (e.g. a list filter's values).
func (t *Table[S]) Names() []string {
	out := make([]string, len(t.states))
	for i, s := range t.states {
		out[i] = string(s)
	}
	return out
}

// Moves lists every allowed move.
func (t *Table[S]) Moves() []Move[S] { return slices.Clone(t.moves) }

// Valid reports whether s is one of the table's states.
func (t *Table[S]) Valid(s S) bool { return slices.Contains(t.states, s) }

// Can reports whether from → to is allowed.
func (t *Table[S]) Can(from, to S) bool { return slices.Contains(t.next[from], to) }

// Check returns nil when from → to is allowed and a *ConflictError otherwise.
func (t *Table[S]) Check(from, to S) error {
	if t.Can(from, to) {
		return nil
	}
	return &ConflictError{From: string(from), To: string(to)}
}

// Sources lists the states from which to can be reached: the `status IN (…)` of a
// conditional write that moves a row to `to`.
func (t *Table[S]) Sources(to S) []S {
	var out []S
	for _, s := range t.states {
		if t.Can(s, to) {
			out = append(out, s)
		}
	}
	return out
}

// SourceNames is Sources as strings, for a conditional write's `status IN (…)`.
func (t *Table[S]) SourceNames(to S) []string {
	src := t.Sources(to)
	out := make([]string, len(src))
	for i, s := range src {
		out[i] = string(s)
	}
	return out
}

// Terminal reports whether no move leaves s.
func (t *Table[S]) Terminal(s S) bool { return t.Valid(s) && len(t.next[s]) == 0 }

// Mermaid renders the table as a Mermaid state diagram.
func (t *Table[S]) Mermaid() string {
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	fmt.Fprintf(&b, "    [*] --> %s\n", t.initial)
	for _, m := range t.moves {
		if m.By != "" {
			fmt.Fprintf(&b, "    %s --> %s: %s\n", m.From, m.To, m.By)
		} else {
			fmt.Fprintf(&b, "    %s --> %s\n", m.From, m.To)
		}
	}
	for _, s := range t.states {
		if t.Terminal(s) {
			fmt.Fprintf(&b, "    %s --> [*]\n", s)
		}
	}
	return b.String()
}

// Diagram is a table seen without its state type, for the generated documentation.
type Diagram interface {
	// Title names the resource.
	Title() string
	// Mermaid renders the diagram.
	Mermaid() string
	// Pairs lists every (from, to) pair of states with whether the move is allowed.
	Pairs() []Pair
}

// Pair is one ordered pair of states and whether the table allows moving between them.
type Pair struct {
	From, To string
	Allowed  bool
}

// Title names the resource.
func (t *Table[S]) Title() string { return t.Name }

// Pairs lists every ordered pair of distinct states with whether the move is allowed.
func (t *Table[S]) Pairs() []Pair {
	var out []Pair
	for _, a := range t.states {
		for _, b := range t.states {
			out = append(out, Pair{From: string(a), To: string(b), Allowed: t.Can(a, b)})
		}
	}
	return out
}

// Markdown renders the documentation page of the given tables: one section and diagram each.
func Markdown(tables ...Diagram) string {
	var b strings.Builder
	b.WriteString("# State machines\n\n")
	b.WriteString("Generated from the transition tables in code (`internal/statemachine`); a test keeps this file equal to them.\n")
	b.WriteString("A move that is not drawn answers 409 `state conflict: cannot transition X → Y` (SPEC 3.5).\n")
	for _, t := range tables {
		fmt.Fprintf(&b, "\n## %s\n\n```mermaid\n%s```\n", t.Title(), t.Mermaid())
	}
	return b.String()
}
