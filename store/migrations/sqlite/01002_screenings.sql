-- +goose Up
CREATE TABLE "screenings" (
    "id" text,
    "org_id" text NOT NULL,
    "customer_id" text,
    "external_id" text,
    "full_name" text NOT NULL,
    "birth_date" text,
    "country" text,
    "entity_type" text,
    "lists" text,
    "threshold" real NOT NULL,
    "status" text NOT NULL,
    "hit_count" integer NOT NULL,
    "hits" text,
    "created_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX "idx_screenings_org_id" ON "screenings" ("org_id");

-- +goose Down
DROP TABLE "screenings";
