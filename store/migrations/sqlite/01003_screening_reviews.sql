-- +goose Up
-- Screening hit reviews: what ran a screening, the revision a review writes over, and the
-- remembered false positives per customer and list entity.
ALTER TABLE "screenings" ADD COLUMN "trigger" text NOT NULL DEFAULT "api";
ALTER TABLE "screenings" ADD COLUMN "revision" integer NOT NULL DEFAULT 0;
CREATE TABLE "screening_suppressions" (
    "org_id" text,
    "customer_id" text,
    "list_id" text,
    "entity_id" text,
    "entity_hash" text NOT NULL,
    "screening_id" text NOT NULL,
    "hit_id" text NOT NULL,
    "resolved_by" text NOT NULL,
    "created_at" datetime,
    PRIMARY KEY ("org_id","customer_id","list_id","entity_id")
);

-- +goose Down
DROP TABLE "screening_suppressions";
ALTER TABLE "screenings" DROP COLUMN "revision";
ALTER TABLE "screenings" DROP COLUMN "trigger";
