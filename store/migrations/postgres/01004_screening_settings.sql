-- +goose Up
-- An organisation's screening defaults (the hit threshold when a request names none).
CREATE TABLE "screening_settings" (
    "org_id" varchar(40),
    "threshold" decimal NOT NULL,
    "updated_by" varchar(40),
    "updated_at" timestamptz,
    PRIMARY KEY ("org_id")
);

-- +goose Down
DROP TABLE "screening_settings";
