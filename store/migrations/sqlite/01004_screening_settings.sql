-- +goose Up
-- An organisation's screening defaults (the hit threshold when a request names none).
CREATE TABLE "screening_settings" (
    "org_id" text,
    "threshold" real NOT NULL,
    "updated_by" text,
    "updated_at" datetime,
    PRIMARY KEY ("org_id")
);

-- +goose Down
DROP TABLE "screening_settings";
