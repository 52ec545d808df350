package cases

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestTargetFollowsLifecycle(t *testing.T) {
	for _, a := range []Action{ActionAssign, ActionEscalate, ActionProposeClose, ActionApproveClose, ActionRejectClose, ActionReopen} {
		for _, from := range Lifecycle.States() {
			to, moves := Target(a, from)
			if !moves {
				continue
			}
			if to != from && !Lifecycle.Can(from, to) && Lifecycle.Check(from, to) == nil {
				t.Errorf("%s from %s → %s: Check says allowed but Can does not", a, from, to)
			}
		}
	}
	if to, _ := Target(ActionApproveClose, StatePendingClose); to != StateClosed || !Lifecycle.Can(StatePendingClose, to) {
		t.Errorf("approve-close → %s", to)
	}
	if err := Lifecycle.Check(StateOpen, StateClosed); err == nil || err.Error() != "state conflict: cannot transition open → closed" {
		t.Errorf("open → closed: %v", err)
	}
	if !Lifecycle.Can(StateClosed, StateInvestigating) || Lifecycle.Can(StateClosed, StateOpen) {
		t.Error("reopen goes to investigating only")
	}
	// Rejecting a closure and reopening move to investigating, which the lifecycle allows from
	// several states: each only from its own (no rejection without a proposal, no reopening
	// of a case that is not closed).
	for _, from := range []State{StateOpen, StateInvestigating, StateEscalated, StateClosed} {
		if _, ok := Target(ActionRejectClose, from); ok {
			t.Errorf("reject-close moves a case in %s", from)
		}
	}
	for _, from := range []State{StateOpen, StateInvestigating, StateEscalated, StatePendingClose} {
		if _, ok := Target(ActionReopen, from); ok {
			t.Errorf("reopen moves a case in %s", from)
		}
	}
	if to, ok := Target(ActionAssign, StateClosed); ok {
		t.Errorf("assign on a closed case moves to %s", to)
	}
	if !SARFilings.Terminal(SARAcknowledged) || !SARFilings.Terminal(SARRejected) || SARFilings.Can(SARSubmitted, SARDraft) {
		t.Error("a submitted filing is immutable")
	}
}

// TestRenderPDFIsWellFormed checks the PDF's structure: header, every xref offset pointing at
// its object, stream lengths and the trailer's startxref.
func TestRenderPDFIsWellFormed(t *testing.T) {
	r := Report{FilingID: "sar_1", CaseID: "cas_1", Subjects: []string{"cus_1"}, Amount: 12500, Currency: "EUR",
		Narrative: strings.Repeat("Structured deposits (just under the threshold) \\ repeated. ", 120)}
	for i := range 30 {
		r.Alerts = append(r.Alerts, ReportRecord{Kind: "fraud", ID: fmt.Sprintf("alr_%d", i), Summary: "review: R_VELOCITY"})
	}
	pdf := RenderPDF(r)
	if !bytes.HasPrefix(pdf, []byte("%PDF-1.4\n")) || !bytes.HasSuffix(pdf, []byte("%%EOF\n")) {
		t.Fatalf("no PDF header or trailer")
	}
	m := regexp.MustCompile(`startxref\n(\d+)\n`).FindSubmatch(pdf)
	if m == nil {
		t.Fatal("no startxref")
	}
	xref, _ := strconv.Atoi(string(m[1]))
	if !bytes.HasPrefix(pdf[xref:], []byte("xref\n")) {
		t.Fatalf("startxref %d does not point at the xref table", xref)
	}
	entries := regexp.MustCompile(`(\d{10}) 00000 n `).FindAllSubmatch(pdf[xref:], -1)
	if len(entries) < 5 {
		t.Fatalf("%d objects, want a catalog, pages, font and at least one page", len(entries))
	}
	for i, e := range entries {
		off, _ := strconv.Atoi(string(e[1]))
		if want := fmt.Sprintf("%d 0 obj\n", i+1); !bytes.HasPrefix(pdf[off:], []byte(want)) {
			t.Errorf("xref entry %d points at %q", i+1, pdf[off:off+10])
		}
	}
	for _, sm := range regexp.MustCompile(`(?s)<< /Length (\d+) >>\nstream\n(.*?)\nendstream`).FindAllSubmatch(pdf, -1) {
		if n, _ := strconv.Atoi(string(sm[1])); n != len(sm[2]) {
			t.Errorf("stream /Length %d, actual %d", n, len(sm[2]))
		}
	}
	if c := bytes.Count(pdf, []byte("/Type /Page ")); c < 2 {
		t.Errorf("%d pages for a long narrative, want several", c)
	}
	if !bytes.Contains(pdf, []byte(`\(just under the threshold\) \\`)) {
		t.Error("parentheses and backslashes are not escaped")
	}
}

func FuzzWrap(f *testing.F) {
	f.Add("a b c", 3)
	f.Add(strings.Repeat("x", 200)+" y\nz", 90)
	f.Fuzz(func(t *testing.T, s string, width int) {
		if width < 1 || width > 200 {
			return
		}
		for _, l := range wrap(s, width) {
			if len(l) > width {
				t.Fatalf("line %q longer than %d", l, width)
			}
		}
	})
}
