-- +goose Up
-- Screening hit reviews: what ran a screening, the revision a review writes over, and the
-- remembered false positives per customer and list entity.
ALTER TABLE "screenings" ADD COLUMN "trigger" varchar(16) NOT NULL DEFAULT 'api';
ALTER TABLE "screenings" ADD COLUMN "revision" bigint NOT NULL DEFAULT 0;
CREATE TABLE "screening_suppressions" (
    "org_id" varchar(40),
    "customer_id" varchar(40),
    "list_id" varchar(40),
    "entity_id" varchar(128),
    "entity_hash" varchar(64) NOT NULL,
    "screening_id" varchar(40) NOT NULL,
    "hit_id" varchar(40) NOT NULL,
    "resolved_by" varchar(40) NOT NULL,
    "created_at" timestamptz,
    PRIMARY KEY ("org_id","customer_id","list_id","entity_id")
);

-- +goose Down
DROP TABLE "screening_suppressions";
ALTER TABLE "screenings" DROP COLUMN "revision";
ALTER TABLE "screenings" DROP COLUMN "trigger";
