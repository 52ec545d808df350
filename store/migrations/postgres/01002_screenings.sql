-- +goose Up
CREATE TABLE "screenings" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "customer_id" varchar(40),
    "external_id" varchar(128),
    "full_name" text NOT NULL,
    "birth_date" varchar(10),
    "country" varchar(2),
    "entity_type" varchar(16),
    "lists" text,
    "threshold" decimal NOT NULL,
    "status" varchar(20) NOT NULL,
    "hit_count" bigint NOT NULL,
    "hits" text,
    "created_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX "idx_screenings_org_id" ON "screenings" ("org_id");

-- +goose Down
DROP TABLE "screenings";
