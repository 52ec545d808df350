package orchestration

// Condition is the "condition" kind: it evaluates a boolean expression in workflow code and
// follows "then" or "else". Config: {"expression": "steps.fetch.output.status == 200"};
// next: {"then": "<node id>", "else": "<node id>"}, both required. Its output is {"result": bool}.
type Condition struct{}

// Name implements Kind.
func (Condition) Name() string { return "condition" }

// Routes implements Kind.
func (Condition) Routes() Routes {
	return Routes{Branches: []string{"then", "else"}, AllRequired: true}
}

// Compile implements Kind.
func (Condition) Compile(r *ConfigReader) Step {
	return &conditionStep{expr: r.Expression("expression", true, true)}
}

type conditionStep struct{ expr *Expression }

// Plan evaluates the expression and picks the branch.
func (s *conditionStep) Plan(env Env) (Action, error) {
	ok, err := s.expr.EvalBool(env)
	if err != nil {
		return nil, err
	}
	branch := "else"
	if ok {
		branch = "then"
	}
	return Done{Output: map[string]any{"result": ok}, Branch: branch}, nil
}
