package cluster

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"
)

// Receiver is the cluster's webhook receiver: it answers 2xx and counts each event id, so a
// run can check that every event arrived at least once, always under the same id.
type Receiver struct {
	URL string
	// Misbehave, when set, decides each delivery's fate before it is counted: an answer
	// status other than 2xx fails the attempt (and it is not counted), a delay answers slowly.
	Misbehave func() (status int, delay time.Duration)

	mu       sync.Mutex
	received map[string]int // event id → deliveries
	names    map[string]string
}

// NewReceiver returns an empty receiver.
func NewReceiver() *Receiver {
	return &Receiver{received: map[string]int{}, names: map[string]string{}}
}

func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path == "/target" {
		// The http nodes' target: a scoring service that always answers.
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"score": 0.5}`))
		return
	}
	if r.Misbehave != nil {
		status, delay := r.Misbehave()
		time.Sleep(delay)
		if status >= 300 {
			http.Error(w, "chaos", status)
			return
		}
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	var ev struct {
		ID    string `json:"id"`
		Event string `json:"event"`
	}
	if err != nil || json.Unmarshal(body, &ev) != nil || ev.ID == "" {
		http.Error(w, "not an event", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.received[ev.ID]++
	r.names[ev.ID] = ev.Event
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// Counts returns how many times each event id arrived.
func (r *Receiver) Counts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.received))
	for k, v := range r.received {
		out[k] = v
	}
	return out
}

// CountName returns how many distinct events named name arrived.
func (r *Receiver) CountName(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, v := range r.names {
		if v == name {
			n++
		}
	}
	return n
}
