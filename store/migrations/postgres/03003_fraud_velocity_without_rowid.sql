-- +goose Up
-- SQLite's velocity tables become WITHOUT ROWID in this version (one b-tree per upsert).
-- PostgreSQL has no such distinction (a heap and its key's index either way): nothing changes.
SELECT 1;

-- +goose Down
SELECT 1;
