package fraud

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func ptr(i int) *int { return &i }

var thresholds = Thresholds{Review: ptr(30), BlockAndReview: ptr(60), Decline: ptr(90)}

func testEnv() *Env {
	req, err := ParseEvaluate([]byte(goodTransaction), KindTransaction, testNow)
	if err != nil {
		panic(err)
	}
	env := NewEnv(req, CustomerView{ID: "cus_1", AgeDays: 2},
		DeviceView{Known: true, ID: "fp_1", Country: "FR"},
		Features{"customer": {"count_1h": 7, "sum_24h": 900.5}, "device": {"distinct_customer_24h": 4}},
		map[string]map[string]bool{"high_risk_countries": {"DE": true}})
	return &env
}

func mustCompile(t testing.TB, rules ...RuleSpec) *RuleSet {
	t.Helper()
	rs, err := Compile(VersionSpec{Rules: rules, Thresholds: thresholds}, []string{"high_risk_countries", "trusted_customers"})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestEvaluateScoresHitsAndEvidence(t *testing.T) {
	rs := mustCompile(t,
		RuleSpec{ID: "rul_a", Version: 3, Name: "burst", Expression: "velocity.customer.count_1h >= 5 && transaction.amount > 10", ScoreModifier: 40, ReasonCode: "VELOCITY_BURST",
			Explanation: "{{ velocity.customer.count_1h }} payments in an hour, now {{ transaction.amount }} {{ transaction.currency }}"},
		RuleSpec{Name: "risky country", Expression: "transaction.country in lists.high_risk_countries", ScoreModifier: 25, ReasonCode: "HIGH_RISK_COUNTRY"},
		RuleSpec{Name: "shared device", Expression: "velocity.device.distinct_customer_24h > 3 and device.country != transaction.country", ScoreModifier: 10, ReasonCode: "SHARED_DEVICE"},
		RuleSpec{Name: "trusted", Expression: "customer.id in lists.trusted_customers", ScoreModifier: -50, ReasonCode: "TRUSTED"},
		RuleSpec{Name: "big", Expression: "transaction.amount > 10000", ScoreModifier: 50, ReasonCode: "VELOCITY_BURST"},
	)
	res := rs.Evaluate(testEnv(), 0)
	if res.Score != 75 || res.Outcome != OutcomeBlockAndReview {
		t.Errorf("score %d outcome %s, want 75 block_and_review", res.Score, res.Outcome)
	}
	if got := strings.Join(res.ReasonCodes, ","); got != "VELOCITY_BURST,HIGH_RISK_COUNTRY,SHARED_DEVICE" {
		t.Errorf("reason codes %s", got)
	}
	if len(res.Matched) != 3 || len(res.Errors) != 0 {
		t.Fatalf("matched %+v errors %+v", res.Matched, res.Errors)
	}
	m := res.Matched[0]
	if m.RuleID != "rul_a" || m.RuleVersion != 3 || m.Explanation != "7 payments in an hour, now 12.5 EUR" {
		t.Errorf("first hit %+v", m)
	}
	if len(m.Vars) != 2 || m.Vars["velocity.customer.count_1h"] != 7.0 || m.Vars["transaction.amount"] != 12.5 {
		t.Errorf("vars %v", m.Vars)
	}
	if v := res.Matched[2].Vars; len(v) != 3 || v["device.country"] != "FR" || v["transaction.country"] != "DE" {
		t.Errorf("shared device vars %v", v)
	}
	if got := rs.Features(); len(got) != 2 || got[0].Path() != "customer.count_1h" || got[1].Path() != "device.distinct_customer_24h" {
		t.Errorf("features %v", got)
	}
	if got := rs.Lists(); strings.Join(got, ",") != "high_risk_countries,trusted_customers" {
		t.Errorf("lists %v", got)
	}
}

func TestThresholdsHighestReachedWins(t *testing.T) {
	for score, want := range map[int]Outcome{-10: OutcomeApprove, 29: OutcomeApprove, 30: OutcomeReview, 59: OutcomeReview, 60: OutcomeBlockAndReview, 90: OutcomeDecline, 500: OutcomeDecline} {
		if got := thresholds.Outcome(score); got != want {
			t.Errorf("score %d: %s, want %s", score, got, want)
		}
	}
	if got := (Thresholds{Decline: ptr(50)}).Outcome(60); got != OutcomeDecline {
		t.Errorf("decline only: %s", got)
	}
}

// TestRuleErrorsAreRecordedNotFatal: rules that fail at run time do not stop the evaluation
// or add to the score; each is recorded on the result by name.
func TestRuleErrorsAreRecordedNotFatal(t *testing.T) {
	rs := mustCompile(t,
		RuleSpec{Name: "div", Expression: "transaction.amount / (velocity.customer.count_1h - 7) > 1", ScoreModifier: 100, ReasonCode: "DIV"},
		RuleSpec{Name: "mod", Expression: "int(transaction.amount) % int(velocity.customer.count_1h - 7) == 0", ScoreModifier: 100, ReasonCode: "MOD"},
		RuleSpec{Name: "big range", Expression: "len(filter(1..10000000, # > 5)) > 0", ScoreModifier: 100, ReasonCode: "RANGE"},
		RuleSpec{Name: "attr", Expression: "attributes.score > 2", ScoreModifier: 35, ReasonCode: "ATTR"},
		RuleSpec{Name: "type", Expression: "attributes.mcc > 2", ScoreModifier: 100, ReasonCode: "TYPE"},
		RuleSpec{Name: "missing", Expression: "attributes.nothing == 'x'", ScoreModifier: 100, ReasonCode: "MISSING"},
	)
	res := rs.Evaluate(testEnv(), 0)
	if res.Score != 35 || res.Outcome != OutcomeReview || len(res.Matched) != 1 {
		t.Errorf("score %d outcome %s matched %v", res.Score, res.Outcome, res.Matched)
	}
	want := map[string]string{"div": "division by zero", "mod": "divide by zero", "big range": "memory budget", "type": "invalid operation"}
	if len(res.Errors) != len(want) {
		t.Fatalf("errors %+v, want %d", res.Errors, len(want))
	}
	for _, e := range res.Errors {
		if !strings.Contains(e.Error, want[e.Name]) {
			t.Errorf("rule %s: error %q, want it to mention %q", e.Name, e.Error, want[e.Name])
		}
	}
}

func TestBudgetSpentRecordsTheRulesLeft(t *testing.T) {
	rs := mustCompile(t,
		RuleSpec{Name: "slow", Expression: "len(filter(1..40000, # % 7 == 0)) > 0", ScoreModifier: 40, ReasonCode: "A"},
		RuleSpec{Name: "second", Expression: "true", ScoreModifier: 40, ReasonCode: "B"},
		RuleSpec{Name: "third", Expression: "true", ScoreModifier: 40, ReasonCode: "C"},
	)
	res := rs.Evaluate(testEnv(), time.Nanosecond)
	if res.Score != 40 || len(res.Errors) != 2 || !strings.Contains(res.Errors[0].Error, "budget") || res.Errors[1].Name != "third" {
		t.Errorf("score %d errors %+v", res.Score, res.Errors)
	}
}

// TestCompileErrorsNameTheRule: every save-time problem comes back as a field error at the
// rule's path whose message names the rule.
func TestCompileErrorsNameTheRule(t *testing.T) {
	ok := RuleSpec{Name: "fine", Expression: "true", ScoreModifier: 1, ReasonCode: "OK"}
	cases := []struct {
		rule       RuleSpec
		path, want string
	}{
		{RuleSpec{Name: "syntax", Expression: "transaction.amount >", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].expression", `rule "syntax": unexpected token`},
		{RuleSpec{Name: "types", Expression: "transaction.amount > 'x'", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].expression", `rule "types": invalid operation`},
		{RuleSpec{Name: "not bool", Expression: "transaction.amount * 2", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].expression", "must give a boolean"},
		{RuleSpec{Name: "unknown field", Expression: "transaction.amout > 1", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].expression", "amout"},
		{RuleSpec{Name: "feature", Expression: "velocity.customer.count_2h > 1", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].expression", `rule "feature": unknown velocity window "2h"`},
		{RuleSpec{Name: "dim", Expression: "velocity.merchant.count_1h > 1", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].expression", "unknown velocity dimension"},
		{RuleSpec{Name: "dynamic", Expression: "velocity.customer[transaction.type] > 1", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].expression", "named literally"},
		{RuleSpec{Name: "whole map", Expression: "len(velocity) > 1", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].expression", "named literally"},
		{RuleSpec{Name: "list", Expression: "transaction.country in lists.nope", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].expression", `unknown value list "nope"`},
		{RuleSpec{Name: "nested", Expression: "all(1..3, any(1..3, # > 1))", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].expression", "nests a loop"},
		{RuleSpec{Name: "clock", Expression: "now() > transaction.occurredAt", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].expression", "rule \"clock\""},
		{RuleSpec{Name: "empty", Expression: " ", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].expression", "empty"},
		{RuleSpec{Name: "long", Expression: strings.Repeat("true && ", 600) + "true", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].expression", "longer than"},
		{RuleSpec{Name: "code", Expression: "true", ScoreModifier: 1, ReasonCode: "lower"}, "rules[1].reasonCode", `rule "code": must be upper case`},
		{RuleSpec{Name: "score", Expression: "true", ScoreModifier: 1e6, ReasonCode: "R"}, "rules[1].scoreModifier", `rule "score"`},
		{RuleSpec{Name: "fine", Expression: "true", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].name", "already used by rules[0]"},
		{RuleSpec{Name: "", Expression: "true", ScoreModifier: 1, ReasonCode: "R"}, "rules[1].name", "1 to 100"},
		{RuleSpec{Name: "template", Expression: "true", ScoreModifier: 1, ReasonCode: "R", Explanation: "{{ transaction.amount "}, "rules[1].explanation", `rule "template": has a '{{' without`},
		{RuleSpec{Name: "template expr", Expression: "true", ScoreModifier: 1, ReasonCode: "R", Explanation: "{{ velocity.x.y }}"}, "rules[1].explanation", "unknown velocity dimension"},
	}
	for _, c := range cases {
		_, err := Compile(VersionSpec{Rules: []RuleSpec{ok, c.rule}, Thresholds: thresholds}, []string{"high_risk_countries"})
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: %v, want a validation error", c.rule.Name, err)
			continue
		}
		if msgs := strings.Join(ve.Fields[c.path], " | "); !strings.Contains(msgs, c.want) {
			t.Errorf("%s: fieldErrors[%s] = %q, want %q (all %v)", c.rule.Name, c.path, msgs, c.want, ve.Fields)
		}
	}
}

func TestCompileChecksThresholdsAndRuleCount(t *testing.T) {
	r := []RuleSpec{{Name: "a", Expression: "true", ScoreModifier: 1, ReasonCode: "A"}}
	for _, c := range []struct {
		spec       VersionSpec
		path, want string
	}{
		{VersionSpec{Rules: r}, "thresholds", "at least one"},
		{VersionSpec{Rules: r, Thresholds: Thresholds{Review: ptr(50), Decline: ptr(40)}}, "thresholds.decline", "higher than thresholds.review (50)"},
		{VersionSpec{Rules: r, Thresholds: Thresholds{Review: ptr(0)}}, "thresholds.review", "between 1"},
		{VersionSpec{Thresholds: thresholds}, "rules", "at least one rule"},
		{VersionSpec{Rules: make([]RuleSpec, MaxRules+1), Thresholds: thresholds}, "rules", "at most"},
	} {
		_, err := Compile(c.spec, nil)
		var ve *ValidationError
		if !errors.As(err, &ve) || !strings.Contains(strings.Join(ve.Fields[c.path], "|"), c.want) {
			t.Errorf("%+v: %v, want %s: %s", c.spec.Thresholds, err, c.path, c.want)
		}
	}
}

func TestShadowRunsBesideLiveWithoutChangingIt(t *testing.T) {
	live := mustCompile(t, RuleSpec{Name: "a", Expression: "transaction.amount > 10", ScoreModifier: 10, ReasonCode: "A"})
	shadow := mustCompile(t, RuleSpec{Name: "a", Expression: "transaction.amount > 10 and velocity.customer.sum_24h > 500", ScoreModifier: 95, ReasonCode: "A"})
	ev := EvaluateWithShadow(live, shadow, testEnv(), 0)
	if ev.Live.Outcome != OutcomeApprove || ev.Live.Score != 10 || ev.Shadow == nil || ev.Shadow.Outcome != OutcomeDecline {
		t.Errorf("live %+v shadow %+v", ev.Live, ev.Shadow)
	}
	if f := FeaturesOf(live, nil, shadow); len(f) != 1 || f[0].Path() != "customer.sum_24h" {
		t.Errorf("features %v", f)
	}
	if ev := EvaluateWithShadow(live, nil, testEnv(), 0); ev.Shadow != nil {
		t.Error("a shadow result without a shadow version")
	}
}

// FuzzCompile feeds arbitrary expressions and templates to the rule compiler: it never panics,
// refuses with a *ValidationError at the rule's paths, and what it accepts evaluates without a
// panic, recording any failure as a rule error.
func FuzzCompile(f *testing.F) {
	for _, seed := range [][2]string{
		{"transaction.amount > 100", "{{ transaction.amount }}"},
		{"velocity.customer.count_1h / 0 > 1", ""},
		{"1 % 0 == 0", "{{ 1/0 }}"},
		{"len(map(1..100000, # * 2)) > 1", "{{"},
		{"transaction.country in lists.high_risk_countries", "{{ lists.high_risk_countries }}"},
		{"attributes.x.y.z == 1", "}}{{ attributes }}"},
		{"let x = 1; x > 0", "{{ now }}"},
		{"repeat('a', 100000) != ''", ""},
		{"all(1..3, any(1..3, true))", ""},
		{"velocity['customer']['count_1h'] > 2", ""},
		{"device.signals?.x ?? false", "{{ device.signals }}"},
		{"(transaction.amount ** 400) > 1", ""},
		{"transaction.occurredAt.Hour() < 25", "{{ transaction.occurredAt.Hour }}"},
		{"transaction.occurredAt.Hour != nil", ""},
	} {
		f.Add(seed[0], seed[1])
	}
	env := testEnv()
	f.Fuzz(func(t *testing.T, expression, explanation string) {
		rs, err := Compile(VersionSpec{
			Rules:      []RuleSpec{{Name: "r", Expression: expression, ScoreModifier: 50, ReasonCode: "R", Explanation: explanation}},
			Thresholds: thresholds,
		}, []string{"high_risk_countries"})
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || rs != nil {
				t.Fatalf("%v is not a validation error", err)
			}
			for p := range ve.Fields {
				if p != "rules[0].expression" && p != "rules[0].explanation" {
					t.Fatalf("error at %s", p)
				}
			}
			return
		}
		res := rs.Evaluate(env, 0)
		if len(res.Matched)+len(res.Errors) > 1 || (len(res.Matched) == 1) != (res.Score == 50) {
			t.Fatalf("result %+v", res)
		}
		// The result is the decision's evidence: it must always be storable.
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("result does not encode: %v", err)
		}
	})
}

// TestMethodCallsReportTheirReceiver: a rule calling a method (transaction.occurredAt.Hour())
// reports the value it was called on, and its evidence encodes; a method named without a call
// is left out of the evidence rather than failing the decision's write.
func TestMethodCallsReportTheirReceiver(t *testing.T) {
	rs := mustCompile(t,
		RuleSpec{Name: "hour", Expression: "transaction.occurredAt.Hour() < 25 && transaction.amount > 0", ScoreModifier: 10, ReasonCode: "H"},
		RuleSpec{Name: "method value", Expression: "transaction.occurredAt.Hour != nil", ScoreModifier: 10, ReasonCode: "M"},
	)
	res := rs.Evaluate(testEnv(), 0)
	if len(res.Matched) != 2 {
		t.Fatalf("matched %+v errors %+v", res.Matched, res.Errors)
	}
	if v := res.Matched[0].Vars; len(v) != 2 || v["transaction.occurredAt"] == nil || v["transaction.amount"] != 12.5 {
		t.Errorf("vars %v", v)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("evidence does not encode: %v", err)
	}
}
