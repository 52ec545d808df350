-- +goose Up
-- The stranded-delivery sweep looks for pending deliveries never attempted, oldest first.
CREATE INDEX "ix_deliveries_status_created" ON "deliveries" ("status","created_at");

-- +goose Down
DROP INDEX "ix_deliveries_status_created";
