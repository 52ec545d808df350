package client

import (
	"context"
	"iter"
	"strconv"
)

// EachOffset walks an offset-paginated list (SPEC 4.4) page by page: fetch reads page n (from 1)
// and returns its rows and the number of pages (meta.pages). It is EachCursor with the next
// page number as the cursor: it stops at the last page, at the first error (yielded once), or
// when the loop breaks.
func EachOffset[T any](ctx context.Context, fetch func(ctx context.Context, page int) (rows []T, pages int, err error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		page := 0
		EachCursor(ctx, func(ctx context.Context, _ *string) ([]T, *string, error) {
			page++
			rows, pages, err := fetch(ctx, page)
			if err != nil || page >= pages || len(rows) == 0 {
				return rows, nil, err
			}
			next := strconv.Itoa(page + 1)
			return rows, &next, nil
		})(yield)
	}
}

// EachCursor walks a cursor-paginated feed (SPEC 4.5): fetch reads the page after cursor (nil for
// the first) and returns its rows and nextCursor, nil at the end.
func EachCursor[T any](ctx context.Context, fetch func(ctx context.Context, cursor *string) (rows []T, next *string, err error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var cursor *string
		for {
			rows, next, err := fetch(ctx, cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, r := range rows {
				if !yield(r, nil) {
					return
				}
			}
			if next == nil || *next == "" {
				return
			}
			cursor = next
		}
	}
}
