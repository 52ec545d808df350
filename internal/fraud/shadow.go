package fraud

import "time"

// Evaluation is the live version's result and, when a shadow version runs beside it, the
// shadow's: stored with the decision, never changing its outcome.
type Evaluation struct {
	Live   Result
	Shadow *Result
}

// EvaluateWithShadow runs live and, when shadow is not nil, shadow against the same env. Each
// version has its own budget, so a slow shadow cannot take the live version's time.
func EvaluateWithShadow(live, shadow *RuleSet, env *Env, budget time.Duration) Evaluation {
	ev := Evaluation{Live: live.Evaluate(env, budget)}
	if shadow != nil {
		s := shadow.Evaluate(env, budget)
		ev.Shadow = &s
	}
	return ev
}

// FeaturesOf lists the velocity features any of the given versions reads (nil ones skipped):
// what an evaluation running them side by side must compute.
func FeaturesOf(sets ...*RuleSet) []Feature {
	all := map[string]Feature{}
	for _, rs := range sets {
		if rs == nil {
			continue
		}
		for _, f := range rs.features {
			all[f.Path()] = f
		}
	}
	return sortedFeatures(all)
}
