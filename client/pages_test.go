package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
)

func TestEachOffsetWalksEveryPage(t *testing.T) {
	all := []int{1, 2, 3, 4, 5, 6, 7}
	var asked []int
	fetch := func(_ context.Context, page int) ([]int, int, error) {
		asked = append(asked, page)
		from := (page - 1) * 3
		return all[from:min(from+3, len(all))], 3, nil
	}
	var got []int
	for v, err := range EachOffset(context.Background(), fetch) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if !slices.Equal(got, all) || !slices.Equal(asked, []int{1, 2, 3}) {
		t.Fatalf("got %v from pages %v", got, asked)
	}
}

func TestEachCursorFollowsNextCursorAndStopsOnBreakAndError(t *testing.T) {
	pages := map[string][]string{"": {"a", "b"}, "c1": {"c"}, "c2": {"d"}}
	next := map[string]*string{"": ptr("c1"), "c1": ptr("c2"), "c2": nil}
	fetch := func(_ context.Context, cur *string) ([]string, *string, error) {
		k := ""
		if cur != nil {
			k = *cur
		}
		return pages[k], next[k], nil
	}
	var got []string
	for v, err := range EachCursor(context.Background(), fetch) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("got %v", got)
	}
	calls := 0
	for range EachCursor(context.Background(), func(context.Context, *string) ([]string, *string, error) {
		calls++
		return []string{"x", "y"}, ptr("more"), nil
	}) {
		break
	}
	if calls != 1 {
		t.Fatalf("a break still fetched %d pages", calls)
	}
	boom := errors.New("boom")
	var errs []error
	for _, err := range EachCursor(context.Background(), func(context.Context, *string) ([]string, *string, error) { return nil, nil, boom }) {
		errs = append(errs, err)
	}
	if len(errs) != 1 || !errors.Is(errs[0], boom) {
		t.Fatalf("errors %v, want boom once", errs)
	}
}

func ptr(s string) *string { return &s }

func TestCheckReadsTheFailureEnvelope(t *testing.T) {
	res := &http.Response{StatusCode: 400, Header: http.Header{"X-Service-Request-Id": {"req_1"}}}
	err := Check(res, []byte(`{"error":"validation failed","details":{"fieldErrors":{"name":["is required"]}}}`))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 400 || apiErr.FieldErrors["name"][0] != "is required" || apiErr.RequestID != "req_1" {
		t.Fatalf("%#v", err)
	}
	err = Check(&http.Response{StatusCode: 429, Header: http.Header{}}, []byte(`{"error":"rate limit exceeded","bucket":"screening","limit":60}`))
	if !errors.As(err, &apiErr) || apiErr.Bucket != "screening" || apiErr.Limit != 60 {
		t.Fatalf("%#v", err)
	}
	if err := Check(&http.Response{StatusCode: 201}, nil); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(Check(&http.Response{StatusCode: 502, Header: http.Header{}}, []byte("<html>"))); got != "svc: 502 Bad Gateway" {
		t.Fatalf("%s", got)
	}
}

func TestIdempotentAndExternalID(t *testing.T) {
	if !Idempotent([]byte(`{"data":{"id":"exe_1"},"idempotent":true}`)) || Idempotent([]byte(`{"data":{"id":"exe_1"}}`)) {
		t.Fatal("Idempotent misreads the flag")
	}
	a, b := NewExternalID(), NewExternalID()
	if a == b || len(a) != 35 {
		t.Fatalf("%q %q", a, b)
	}
}
