package orchestration

// Transform is the "transform" kind: it builds a new object from expressions, evaluated in
// workflow code. Config: {"output": {"fullName": "{{ inputs.first + ' ' + inputs.last }}",
// "total": "{{ steps.fetch.output.body.total }}", "source": "crm"}}. Its output is the
// rendered object; as the last node it shapes the execution's output.
type Transform struct{}

// Name implements Kind.
func (Transform) Name() string { return "transform" }

// Routes implements Kind: a transform node has one way out.
func (Transform) Routes() Routes { return Routes{} }

// Compile implements Kind.
func (Transform) Compile(r *ConfigReader) Step {
	t := r.Template("output", true)
	if t != nil {
		if _, ok := t.root.(*objectNode); !ok {
			r.Errorf("output", "must be an object")
		}
	}
	return &transformStep{output: t}
}

type transformStep struct{ output *Template }

// Plan renders the output object.
func (s *transformStep) Plan(env Env) (Action, error) {
	v, err := s.output.Eval(env)
	if err != nil {
		return nil, err
	}
	return Done{Output: v}, nil
}
