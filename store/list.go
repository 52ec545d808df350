package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Lists: the one way every list endpoint pages and filters (SPEC 4.4 to 4.6).
//
// A handler parses the query string with api.ParseOffset / api.ParseCursor / api.ParseFilter (which
// answer 400 with details.fieldErrors on bad input), then calls one store function that builds its
// query from Scopes:
//
//	rows, total, err := store.ListOffset[Execution](ctx, s.DB, page, "created_at DESC, id DESC",
//		store.ForOrg(orgID), filter.Scope(store.FilterColumns{Text: []string{"workflow_slug"}, Status: "status"}))
//
//	rows, next, err := store.ListCursor(ctx, s.DB, cur, func(d *Delivery) store.Cursor {
//		return store.Cursor{Time: d.CreatedAt, ID: d.ID}
//	}, store.ForOrg(orgID), store.Where("webhook_id = ?", id))
//
// Every list query must include ForOrg (or an equivalent org_id condition).

// Scope is a reusable query condition (a GORM scope).
type Scope = func(*gorm.DB) *gorm.DB

// ForOrg restricts a query to one organisation's rows (column org_id).
func ForOrg(orgID string) Scope {
	return func(db *gorm.DB) *gorm.DB { return db.Where("org_id = ?", orgID) }
}

// Where is a plain condition as a Scope.
func Where(query string, args ...any) Scope {
	return func(db *gorm.DB) *gorm.DB { return db.Where(query, args...) }
}

// Offset asks for one page of an offset-paginated list: Page is 1-indexed.
type Offset struct {
	Page  int
	Limit int
}

// ListOffset returns one page of T matching scopes, ordered by order (for example
// "created_at DESC, id DESC"; always end with a unique column so pages are stable), and the total
// number of matching rows.
func ListOffset[T any](ctx context.Context, db *gorm.DB, page Offset, order string, scopes ...Scope) ([]T, int64, error) {
	if page.Page < 1 || page.Limit < 1 {
		return nil, 0, fmt.Errorf("store: invalid page %d / limit %d", page.Page, page.Limit)
	}
	offset := (page.Page - 1) * page.Limit
	rows := make([]T, 0, page.Limit)
	if err := db.WithContext(ctx).Scopes(scopes...).Order(order).Offset(offset).Limit(page.Limit).Find(&rows).Error; err != nil {
		return nil, 0, err
	}
	// A page that is neither full nor empty is the last one: it tells the total without a count.
	if n := len(rows); n > 0 && n < page.Limit {
		return rows, int64(offset + n), nil
	}
	var total int64
	if err := db.WithContext(ctx).Model(new(T)).Scopes(scopes...).Count(&total).Error; err != nil {
		return nil, 0, err
	}
	return rows, total, nil
}

// Cursor is a position in a time-ordered feed: the (time, id) of the last row of a page. Rows
// are ordered newest first by (time, id), both descending, so rows sharing a timestamp are
// ordered by id and none is skipped or repeated; rows inserted while a client pages are newer
// than its cursor and so never shift a later page.
type Cursor struct {
	Time time.Time
	ID   string
}

// cursorSep separates the timestamp from the id in a cursor string; it is URL-safe.
const cursorSep = "~"

// String is the cursor as the client sees it: "<RFC 3339 timestamp with nanoseconds>~<id>".
func (c Cursor) String() string {
	return c.Time.UTC().Format(time.RFC3339Nano) + cursorSep + c.ID
}

// ErrBadCursor is returned by ParseCursor for a string that no page produced.
var ErrBadCursor = errors.New("malformed cursor")

// ParseCursor reads a cursor produced by Cursor.String.
func ParseCursor(s string) (Cursor, error) {
	ts, id, ok := strings.Cut(s, cursorSep)
	if !ok || id == "" || len(id) > 100 {
		return Cursor{}, ErrBadCursor
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return Cursor{}, ErrBadCursor
	}
	return Cursor{Time: t.UTC(), ID: id}, nil
}

// CursorPage asks for one page of a cursor-paginated feed.
type CursorPage struct {
	Limit int
	// After is the previous page's cursor; nil for the first page.
	After *Cursor
	// TimeColumn is the ordering timestamp column; "" means created_at. The id column is id.
	TimeColumn string
}

// ListCursor returns one page of T matching scopes, newest first, and the cursor of the next page
// (nil at the end). key returns a row's (time, id): the values of TimeColumn and id.
func ListCursor[T any](ctx context.Context, db *gorm.DB, page CursorPage, key func(*T) Cursor, scopes ...Scope) ([]T, *Cursor, error) {
	if page.Limit < 1 {
		return nil, nil, fmt.Errorf("store: invalid limit %d", page.Limit)
	}
	col := page.TimeColumn
	if col == "" {
		col = "created_at"
	}
	q := db.WithContext(ctx).Scopes(scopes...)
	if page.After != nil {
		at := page.After.Time.UTC()
		q = q.Where("("+col+" < ? OR ("+col+" = ? AND id < ?))", at, at, page.After.ID)
	}
	rows := make([]T, 0, page.Limit+1)
	// One row more than asked tells whether another page exists, so the last page says so.
	if err := q.Order(col + " DESC").Order("id DESC").Limit(page.Limit + 1).Find(&rows).Error; err != nil {
		return nil, nil, err
	}
	if len(rows) <= page.Limit {
		return rows, nil, nil
	}
	rows = rows[:page.Limit]
	next := key(&rows[len(rows)-1])
	next.Time = next.Time.UTC()
	return rows, &next, nil
}

// Filter is the common list filters of SPEC 4.6, parsed by api.ParseFilter.
type Filter struct {
	// Q is free text, matched case-insensitively as a substring of FilterColumns.Text.
	Q string
	// Status holds the accepted values of status=a,b (any of them matches).
	Status []string
	// From and To bound FilterColumns.Time, both inclusive; nil for open.
	From, To *time.Time
	// ToExclusive is set when To came from a date without a time (to=2026-01-31 means the whole day):
	// then To is the start of the next day and excluded.
	ToExclusive bool
	CustomerID  string
	ExternalID  string
	// Summary asks for aggregate counts in the response envelope (summary=true).
	Summary bool
}

// FilterColumns names the columns a list filters on; an empty name means the list does not
// support that filter (api.ParseFilter refuses it with 400 before it gets here).
type FilterColumns struct {
	Text       []string
	Status     string
	Time       string // default created_at
	CustomerID string
	ExternalID string
}

// Scope turns the filter into one query condition on cols.
func (f Filter) Scope(cols FilterColumns) Scope {
	return func(db *gorm.DB) *gorm.DB {
		if f.Q != "" && len(cols.Text) > 0 {
			pattern := "%" + escapeLike(strings.ToLower(f.Q)) + "%"
			var ors []string
			var args []any
			for _, c := range cols.Text {
				ors = append(ors, "LOWER("+c+") LIKE ? ESCAPE '\\'")
				args = append(args, pattern)
			}
			db = db.Where("("+strings.Join(ors, " OR ")+")", args...)
		}
		if len(f.Status) > 0 && cols.Status != "" {
			db = db.Where(cols.Status+" IN ?", f.Status)
		}
		tc := cols.Time
		if tc == "" {
			tc = "created_at"
		}
		if f.From != nil {
			db = db.Where(tc+" >= ?", f.From.UTC())
		}
		if f.To != nil {
			if f.ToExclusive {
				db = db.Where(tc+" < ?", f.To.UTC())
			} else {
				db = db.Where(tc+" <= ?", f.To.UTC())
			}
		}
		if f.CustomerID != "" && cols.CustomerID != "" {
			db = db.Where(cols.CustomerID+" = ?", f.CustomerID)
		}
		if f.ExternalID != "" && cols.ExternalID != "" {
			db = db.Where(cols.ExternalID+" = ?", f.ExternalID)
		}
		return db
	}
}

// escapeLike escapes LIKE wildcards so q matches literally.
func escapeLike(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}

// CountBy returns the number of rows of T matching scopes for each value of column, for the
// summary=true aggregate counts (for example CountBy[Execution](ctx, db, "status", scopes...)).
func CountBy[T any](ctx context.Context, db *gorm.DB, column string, scopes ...Scope) (map[string]int64, error) {
	var rows []struct {
		Value string
		N     int64
	}
	err := db.WithContext(ctx).Model(new(T)).Scopes(scopes...).
		Select(column + " AS value, COUNT(*) AS n").Group(column).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.Value] = r.N
	}
	return out, nil
}
