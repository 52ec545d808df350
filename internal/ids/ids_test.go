package ids

import (
	"sort"
	"testing"
	"time"
)

func TestNewShapeAndValid(t *testing.T) {
	id := New(Execution)
	if !Valid(Execution, id) {
		t.Fatalf("New produced invalid id %q", id)
	}
	if Valid(Workflow, id) {
		t.Fatalf("%q must not be a valid workflow id", id)
	}
	for _, bad := range []string{"", "exe_", "exe_" + "0123456789abcdefghjkmnpqr", "exe_0123456789abcdefghjkmnpqrsu", "exe_81234567890123456789abcde", "EXE_0123456789abcdefghjkmnpqrs"} {
		if Valid(Execution, bad) {
			t.Errorf("Valid(%q) = true, want false", bad)
		}
	}
}

func TestIDsSortByCreationTime(t *testing.T) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var got []string
	for i := 0; i < 200; i++ {
		got = append(got, NewAt(Event, base.Add(time.Duration(i)*time.Millisecond)))
	}
	if !sort.StringsAreSorted(got) {
		t.Fatal("ids made at increasing times do not sort in that order")
	}
}

func TestIDsAreUnique(t *testing.T) {
	seen := map[string]bool{}
	now := time.Now()
	for i := 0; i < 10000; i++ {
		id := NewAt(Document, now)
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
	}
}

func TestDeriveIsDeterministic(t *testing.T) {
	at := time.UnixMilli(1700000000123)
	r := [10]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	a, b := Derive(Event, at, r), Derive(Event, at, r)
	if a != b || !Valid(Event, a) {
		t.Fatalf("Derive not stable or invalid: %q %q", a, b)
	}
	r[9] = 11
	if Derive(Event, at, r) == a {
		t.Fatal("different seed gave the same id")
	}
}

func TestDeriveFrom(t *testing.T) {
	at := time.UnixMilli(1700000000123)
	// Pinned: running workflows and stored records already carry ids made this way.
	tests := []struct {
		p     Prefix
		parts []string
		want  string
	}{
		{Step, []string{"exe_01hf0000000000000000000000", "fetch"}, "stp_01hf7yat3vsykzyqtbwq7cxrg8"},
		{Delivery, []string{"evt_1", "whk_1"}, "whd_01hf7yat3vtj65tfcqw8kvppky"},
	}
	for _, tt := range tests {
		if got := DeriveFrom(tt.p, at, tt.parts...); got != tt.want || !Valid(tt.p, got) {
			t.Errorf("DeriveFrom(%s, %q) = %q, want %q", tt.p, tt.parts, got, tt.want)
		}
	}
	if DeriveFrom(Step, at, "ab", "c") == DeriveFrom(Step, at, "a", "bc") {
		t.Error("moving a part boundary gave the same id")
	}
	if DeriveFrom(Step, at, "a") != DeriveFrom(Step, at.Add(500*time.Microsecond), "a") {
		t.Error("the time part should keep milliseconds only")
	}
}

// TestWithin: a child's id keeps its parent's time part, is the same for the same parent and
// key, and differs for another key or parent.
func TestWithin(t *testing.T) {
	parent := NewAt(Case, time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC))
	a, b := Within(Case, parent, "entry", "k1"), Within(Case, parent, "entry", "k1")
	if a != b || !Valid(Case, a) || a[:14] != parent[:14] {
		t.Fatalf("Within(%s) = %s, %s", parent, a, b)
	}
	if Within(Case, parent, "entry", "k2") == a || Within(Case, New(Case), "entry", "k1") == a {
		t.Fatal("another key or parent gave the same id")
	}
}
