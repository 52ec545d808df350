package documents_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/documents/fixtures"
)

// TestAccuracyReport generates a corpus of varied, degraded documents, runs every one
// through all stages and prints throughput (documents per minute by kind) and, per
// confidence band, how many extracted fields were right. It takes minutes, so it runs only
// with DOCINTEL_REPORT=1 (DOCINTEL_REPORT_N documents per kind and type, default 4;
// DOCINTEL_REPORT_SEED, default 1).
func TestAccuracyReport(t *testing.T) {
	if os.Getenv("DOCINTEL_REPORT") == "" {
		t.Skip("set DOCINTEL_REPORT=1 to run the accuracy and throughput report")
	}
	n, seed := envInt("DOCINTEL_REPORT_N", 4), envInt("DOCINTEL_REPORT_SEED", 1)
	corpus, err := fixtures.Corpus(uint64(seed), n)
	if err != nil {
		t.Fatal(err)
	}
	e := docintel.NewEngine(docintel.Config{})
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)

	bands := []float64{0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0001}
	type bucket struct{ fields, right int }
	byBand := make([]bucket, len(bands)-1)
	type kindStat struct {
		docs        int
		dur         time.Duration
		cpu         time.Duration
		extracted   int
		extractedOK int
		// extractedWrong counts documents extracted without review with a wrong field.
		extractedWrong int
		review         int
		classified     int
	}
	kinds := map[string]*kindStat{}
	missing := 0
	missed := map[string]int{}
	reasons := map[string]int{}
	var wrongHigh []string
	for _, s := range corpus {
		start, cpu0 := time.Now(), cpuTime()
		r, err := e.Process(context.Background(), s.Data, docintel.ProcessOptions{Now: now})
		took, cpu := time.Since(start), cpuTime()-cpu0
		ks := kinds[s.Kind]
		if ks == nil {
			ks = &kindStat{}
			kinds[s.Kind] = ks
		}
		ks.docs++
		ks.dur += took
		ks.cpu += cpu
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		if r.Classification.Type == s.DocType {
			ks.classified++
		}
		allRight, anyWrong := true, false
		for name, want := range s.Expected {
			f, ok := r.Decision.Fields[name]
			if !ok || f.Label == docintel.LabelMissing {
				missing++
				missed[s.Kind+"/"+s.DocType+"."+name]++
				allRight = false
				continue
			}
			right := f.Value == want
			allRight = allRight && right
			anyWrong = anyWrong || !right
			for b := range byBand {
				if f.Confidence >= bands[b] && f.Confidence < bands[b+1] {
					byBand[b].fields++
					if right {
						byBand[b].right++
					}
				}
			}
			if !right && f.Confidence >= 0.8 {
				wrongHigh = append(wrongHigh, fmt.Sprintf("%s %s: got %q want %q conf %.3f", s.Name, name, f.Value, want, f.Confidence))
			}
		}
		if r.Decision.Status == docintel.StatusExtracted {
			ks.extracted++
			if allRight {
				ks.extractedOK++
			}
			if anyWrong {
				ks.extractedWrong++
			}
		} else {
			ks.review++
			for _, f := range r.Decision.Flags {
				reasons[s.Kind+"/"+s.DocType+" "+f]++
			}
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "\nThroughput and outcomes (%d documents, seed %d, 1 document at a time):\n", len(corpus), seed)
	fmt.Fprintf(&b, "| kind | docs | docs/min (wall) | mean s/doc (wall) | CPU s/doc | docs/min per core (CPU) | classified right | extracted | of which all fields found and right | of which a field wrong | requires_review |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		ks := kinds[k]
		perDoc := ks.dur.Seconds() / float64(ks.docs)
		cpuPerDoc := ks.cpu.Seconds() / float64(ks.docs)
		fmt.Fprintf(&b, "| %s | %d | %.1f | %.2f | %.2f | %.1f | %d | %d | %d | %d | %d |\n", k, ks.docs, 60/perDoc, perDoc, cpuPerDoc, 60/cpuPerDoc, ks.classified, ks.extracted, ks.extractedOK, ks.extractedWrong, ks.review)
	}
	fmt.Fprintf(&b, "\nField accuracy by confidence band (%d expected fields not found at all):\n", missing)
	fmt.Fprintf(&b, "| confidence | fields | right | accuracy |\n|---|---|---|---|\n")
	for i, bk := range byBand {
		acc := "-"
		if bk.fields > 0 {
			acc = fmt.Sprintf("%.1f%%", 100*float64(bk.right)/float64(bk.fields))
		}
		fmt.Fprintf(&b, "| [%.2f, %.2f) | %d | %d | %s |\n", bands[i], min(bands[i+1], 1), bk.fields, bk.right, acc)
	}
	if len(reasons) > 0 {
		fmt.Fprintf(&b, "\nReview flags (kind/type flag: count): %v\n", reasons)
	}
	if len(missed) > 0 {
		fmt.Fprintf(&b, "\nNot found (kind/type.field: count): %v\n", missed)
	}
	if len(wrongHigh) > 0 {
		fmt.Fprintf(&b, "\nWrong fields with confidence >= 0.80:\n  %s\n", strings.Join(wrongHigh, "\n  "))
	}
	t.Log(b.String())
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// cpuTime is the CPU time (user and system) used so far by this process and by its
// finished children (qpdf, poppler, tesseract): unlike wall time it does not grow when
// other work shares the machine.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}
