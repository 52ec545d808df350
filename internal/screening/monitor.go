package screening

// DeltaEntities returns the entities of a new list version that a rescreen after the given
// delta must look at: the added and the changed ones. Removed entities cannot raise hits.
func DeltaEntities(cur []Entity, d Delta) []Entity {
	want := make(map[string]bool, len(d.Added)+len(d.Changed))
	for _, id := range d.Added {
		want[id] = true
	}
	for _, id := range d.Changed {
		want[id] = true
	}
	out := make([]Entity, 0, len(want))
	for _, e := range cur {
		if want[e.ID] {
			out = append(out, e)
		}
	}
	return out
}
