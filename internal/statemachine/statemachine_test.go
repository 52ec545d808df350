package statemachine_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/svcplatform/svc/internal/statemachine"
)

type light string

var lights = statemachine.New("light", "red", []light{"red", "green", "amber", "off"},
	statemachine.Move[light]{From: "red", To: "green", By: "timer"},
	statemachine.Move[light]{From: "green", To: "amber"},
	statemachine.Move[light]{From: "amber", To: "red"},
	statemachine.Move[light]{From: "amber", To: "off"},
	statemachine.Move[light]{From: "red", To: "off"},
)

func TestCheckAllowsOnlyTheTable(t *testing.T) {
	allowed := map[[2]light]bool{{"red", "green"}: true, {"green", "amber"}: true, {"amber", "red"}: true, {"amber", "off"}: true, {"red", "off"}: true}
	for _, from := range lights.States() {
		for _, to := range lights.States() {
			err := lights.Check(from, to)
			if allowed[[2]light{from, to}] {
				if err != nil {
					t.Errorf("%s → %s: %v, want allowed", from, to, err)
				}
				continue
			}
			var c *statemachine.ConflictError
			if !errors.As(err, &c) || err.Error() != "state conflict: cannot transition "+string(from)+" → "+string(to) {
				t.Errorf("%s → %s: %v, want a conflict", from, to, err)
			}
		}
	}
}

func TestSourcesAndTerminal(t *testing.T) {
	if got := lights.Sources("off"); !slices.Equal(got, []light{"red", "amber"}) {
		t.Errorf("Sources(off) = %v", got)
	}
	if !lights.Terminal("off") || lights.Terminal("red") || lights.Terminal("blue") {
		t.Error("Terminal: off only")
	}
	if lights.Initial() != "red" {
		t.Error("initial")
	}
}

func TestMermaid(t *testing.T) {
	m := lights.Mermaid()
	for _, want := range []string{"[*] --> red", "red --> green: timer", "amber --> off", "off --> [*]"} {
		if !strings.Contains(m, want) {
			t.Errorf("diagram lacks %q:\n%s", want, m)
		}
	}
}

func TestUnknownStatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a move to an unknown state must panic")
		}
	}()
	statemachine.New("bad", "a", []light{"a"}, statemachine.Move[light]{From: "a", To: "b"})
}
