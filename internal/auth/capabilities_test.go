package auth_test

import (
	"slices"
	"testing"

	"github.com/svcplatform/svc/internal/auth"
)

func TestCapabilities(t *testing.T) {
	all := auth.ParseCapabilities("*")
	for _, p := range auth.Products() {
		if !all.Has(p) {
			t.Errorf("* lacks %s", p)
		}
	}
	some := auth.ParseCapabilities("documents, screening,documents")
	if !some.Has("documents") || !some.Has("screening") || some.Has("fraud") || some.All() {
		t.Errorf("parsed set wrong: %v", some.List())
	}
	if got := some.String(); got != "documents,screening" {
		t.Errorf("stored form %q", got)
	}
	if none := auth.ParseCapabilities(""); len(none.List()) != 0 || none.Has("documents") {
		t.Error("the empty set grants nothing")
	}
	if _, err := auth.NewCapabilities([]string{"documents", "payroll"}); err == nil {
		t.Error("an unknown product must be refused")
	}
	if _, err := auth.NewCapabilities([]string{"*", "documents"}); err == nil {
		t.Error(`"*" must stand alone`)
	}
	c, err := auth.NewCapabilities([]string{"fraud", "orchestration"})
	if err != nil || !slices.Equal(c.List(), []string{"orchestration", "fraud"}) {
		t.Errorf("NewCapabilities = %v, %v", c.List(), err)
	}
}
