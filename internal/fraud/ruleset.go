package fraud

import (
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/expr-lang/expr/vm"
)

// Bounds of a rule set version.
const (
	// MaxRules caps the rules of one version.
	MaxRules = 200
	// DefaultBudget is how long the rules of one evaluation may run together; the rules left
	// when it is spent are recorded as errors on the decision instead of delaying it. It is the
	// default of the fraud.rule_budget key (config), which the API passes; it guards against a
	// pathological rule set, so it sits far above what 20 rules take (microseconds): at 25 ms a
	// busy machine's scheduling delays alone skipped rules under load.
	DefaultBudget = 250 * time.Millisecond
)

var (
	reasonPattern   = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)
	ruleNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 _.-]{0,99}$`)
)

// RuleSpec is one rule as written: an expr-lang expression that is true when the rule hits.
type RuleSpec struct {
	// ID and Version identify the rule in decisions; the store assigns them.
	ID            string `json:"ruleId,omitempty"`
	Version       int    `json:"ruleVersion,omitempty"`
	Name          string `json:"name"`
	Expression    string `json:"expression"`
	ScoreModifier int    `json:"scoreModifier"`
	ReasonCode    string `json:"reasonCode"`
	// Explanation is a template with {{ expression }} holes, rendered when the rule hits.
	Explanation string `json:"explanation,omitempty"`
}

// VersionSpec is the content of a rule set version: its rules and thresholds.
type VersionSpec struct {
	Rules      []RuleSpec `json:"rules"`
	Thresholds Thresholds `json:"thresholds"`
}

// RuleSet is a compiled, immutable version: safe for concurrent evaluations.
type RuleSet struct {
	spec     VersionSpec
	rules    []*rule
	features []Feature
	lists    []string
}

type rule struct {
	spec    RuleSpec
	cond    *program
	vars    []*program
	explain *explanation
}

// Compile type-checks a version. knownLists, when not nil, are the organisation's value lists
// (a rule naming another is refused). Errors come back as one *ValidationError whose fields
// are rules[i].<field> and whose messages name the rule.
func Compile(spec VersionSpec, knownLists []string) (*RuleSet, error) {
	v := &ValidationError{}
	spec.Thresholds.validate(v)
	switch {
	case len(spec.Rules) == 0:
		v.add("rules", "add at least one rule")
	case len(spec.Rules) > MaxRules:
		v.add("rules", "at most %d rules", MaxRules)
		return nil, v
	}
	rs := &RuleSet{spec: spec}
	features := map[string]Feature{}
	names := map[string]int{}
	for i, r := range spec.Rules {
		at := func(f string) string { return fmt.Sprintf("rules[%d].%s", i, f) }
		label := fmt.Sprintf("rule %q", r.Name)
		if !ruleNamePattern.MatchString(r.Name) {
			v.add(at("name"), "must be 1 to 100 letters, digits, spaces, '_', '.' or '-'")
			label = fmt.Sprintf("rule %d", i+1)
		} else if j, dup := names[r.Name]; dup {
			v.add(at("name"), "%s: the name is already used by rules[%d]", label, j)
		} else {
			names[r.Name] = i
		}
		if !reasonPattern.MatchString(r.ReasonCode) {
			v.add(at("reasonCode"), "%s: must be upper case letters, digits and '_', starting with a letter (for example HIGH_AMOUNT)", label)
		}
		if r.ScoreModifier < -MaxThreshold || r.ScoreModifier > MaxThreshold {
			v.add(at("scoreModifier"), "%s: must be between %d and %d", label, -MaxThreshold, MaxThreshold)
		}
		cond, err := compileExpr(r.Expression, true, knownLists)
		if err != nil {
			v.add(at("expression"), "%s: %v", label, err)
		}
		explain, err := compileExplanation(r.Explanation, knownLists)
		if err != nil {
			v.add(at("explanation"), "%s: %v", label, err)
		}
		if cond == nil || explain == nil {
			continue
		}
		compiled := &rule{spec: r, cond: cond, explain: explain}
		for _, path := range cond.vars {
			p, err := compileExpr(path, false, nil)
			if err != nil {
				v.add(at("expression"), "%s: %s: %v", label, path, err)
				continue
			}
			compiled.vars = append(compiled.vars, p)
		}
		for _, p := range append([]*program{cond}, explain.holes...) {
			for _, f := range p.features {
				features[f.Path()] = f
			}
			rs.lists = append(rs.lists, p.lists...)
		}
		rs.rules = append(rs.rules, compiled)
	}
	if err := v.orNil(); err != nil {
		return nil, err
	}
	rs.features = sortedFeatures(features)
	slices.Sort(rs.lists)
	rs.lists = slices.Compact(rs.lists)
	return rs, nil
}

// Spec returns the version as written.
func (rs *RuleSet) Spec() VersionSpec { return rs.spec }

// Features lists the velocity features the rules read: the only ones an evaluation computes.
func (rs *RuleSet) Features() []Feature { return slices.Clone(rs.features) }

// Lists names the value lists the rules read.
func (rs *RuleSet) Lists() []string { return slices.Clone(rs.lists) }

// MatchedRule is a rule that hit, with its evidence.
type MatchedRule struct {
	RuleID        string `json:"ruleId"`
	RuleVersion   int    `json:"ruleVersion"`
	Name          string `json:"name"`
	ScoreModifier int    `json:"scoreModifier"`
	ReasonCode    string `json:"reasonCode"`
	Explanation   string `json:"explanation"`
	// Vars are the values of the data the rule read (transaction.amount, velocity.customer.count_1h).
	Vars map[string]any `json:"vars"`
}

// RuleError is a rule that could not be evaluated; it does not add to the score.
type RuleError struct {
	RuleID string `json:"ruleId,omitempty"`
	Name   string `json:"name"`
	Error  string `json:"error"`
}

// Result is what one rule set version decided.
type Result struct {
	Outcome     Outcome       `json:"outcome"`
	Score       int           `json:"score"`
	Matched     []MatchedRule `json:"matchedRules"`
	ReasonCodes []string      `json:"reasonCodes"`
	Errors      []RuleError   `json:"ruleErrors,omitempty"`
}

// Evaluate runs every rule against env. It never fails: a rule that errs (a division by zero,
// a memory budget spent, a value of the wrong type) is recorded in Errors, and when budget
// (DefaultBudget if zero) is spent the remaining rules are recorded as not evaluated.
func (rs *RuleSet) Evaluate(env *Env, budget time.Duration) Result {
	if budget <= 0 {
		budget = DefaultBudget
	}
	var envAny any = *env
	machine := &vm.VM{}
	res := Result{Matched: []MatchedRule{}, ReasonCodes: []string{}}
	deadline := time.Now().Add(budget)
	for i, r := range rs.rules {
		if i > 0 && time.Now().After(deadline) {
			for _, left := range rs.rules[i:] {
				res.Errors = append(res.Errors, RuleError{RuleID: left.spec.ID, Name: left.spec.Name, Error: fmt.Sprintf("not evaluated: the evaluation budget of %s was spent", budget)})
			}
			break
		}
		hit, err := r.eval(machine, envAny)
		if err != nil {
			res.Errors = append(res.Errors, RuleError{RuleID: r.spec.ID, Name: r.spec.Name, Error: err.Error()})
			continue
		}
		if !hit {
			continue
		}
		res.Score += r.spec.ScoreModifier
		res.Matched = append(res.Matched, r.evidence(machine, envAny))
		if !slices.Contains(res.ReasonCodes, r.spec.ReasonCode) {
			res.ReasonCodes = append(res.ReasonCodes, r.spec.ReasonCode)
		}
	}
	res.Outcome = rs.spec.Thresholds.Outcome(res.Score)
	return res
}

// eval runs the rule's condition.
func (r *rule) eval(machine *vm.VM, env any) (bool, error) {
	v, err := r.cond.run(machine, env)
	if err != nil {
		return false, err
	}
	switch b := v.(type) {
	case bool:
		return b, nil
	case nil:
		// A missing attribute compared with nothing: the rule does not hit.
		return false, nil
	}
	return false, fmt.Errorf("expression gave %T, want a boolean", v)
}

// evidence is the matched rule with its explanation and the values it read.
func (r *rule) evidence(machine *vm.VM, env any) MatchedRule {
	m := MatchedRule{
		RuleID: r.spec.ID, RuleVersion: r.spec.Version, Name: r.spec.Name,
		ScoreModifier: r.spec.ScoreModifier, ReasonCode: r.spec.ReasonCode,
		Explanation: r.explain.render(machine, env), Vars: make(map[string]any, len(r.vars)),
	}
	for _, p := range r.vars {
		if v, err := p.run(machine, env); err == nil && reportable(v) {
			m.Vars[p.source] = jsonValue(v)
		}
	}
	return m
}
