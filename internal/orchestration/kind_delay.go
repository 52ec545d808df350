package orchestration

import "time"

// MaxDelay is the longest delay or approval timeout a node may set.
const MaxDelay = 366 * 24 * time.Hour

// Delay is the "delay" kind: a durable timer. Config: {"duration": "15m"}. Its output is null.
type Delay struct{}

// Name implements Kind.
func (Delay) Name() string { return "delay" }

// Routes implements Kind: a delay node has one way out.
func (Delay) Routes() Routes { return Routes{} }

// Compile implements Kind.
func (Delay) Compile(r *ConfigReader) Step {
	return delayStep{d: r.Duration("duration", true, 0, time.Second, MaxDelay)}
}

type delayStep struct{ d time.Duration }

// Plan asks for a timer.
func (s delayStep) Plan(Env) (Action, error) { return Sleep{Duration: s.d}, nil }
