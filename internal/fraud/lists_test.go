package fraud

import (
	"errors"
	"slices"
	"testing"
)

func TestParseListValues(t *testing.T) {
	got, err := ParseListValues([]byte(`{"values": ["b", "a", "b"]}`))
	if err != nil || !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("%v %v", got, err)
	}
	if got, err := ParseListValues([]byte(`{"values": []}`)); err != nil || got == nil || len(got) != 0 {
		t.Errorf("empty list: %v %v", got, err)
	}
	for _, bad := range []string{`[]`, `{}`, `{"values": null}`, `{"values": [""]}`, `{"values": [1]}`, `{"values": "a"}`, `{"values": [], "x": 1}`} {
		var ve *ValidationError
		if _, err := ParseListValues([]byte(bad)); !errors.As(err, &ve) {
			t.Errorf("%s: %v, want a validation error", bad, err)
		}
	}
	if ValidListName("Deny") || ValidListName("1x") || ValidListName("") || !ValidListName("deny_customers") {
		t.Error("list names")
	}
}

// FuzzParseListValues: any body is a list of distinct, sorted, bounded values or a
// *ValidationError, never a panic.
func FuzzParseListValues(f *testing.F) {
	for _, s := range []string{`{"values": ["a", "b"]}`, `{"values": []}`, `{"values": [null]}`, `{"values": ["\u0000"]}`, `{`, `null`, `{"values": [[]]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := ParseListValues(raw)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || got != nil {
				t.Fatalf("%v is not a validation error", err)
			}
			return
		}
		if len(got) > MaxListValues || !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Fatalf("values %q", got)
		}
		for _, v := range got {
			if v == "" || len(v) > MaxListValueLen {
				t.Fatalf("value %q", v)
			}
		}
	})
}
