-- +goose Up
CREATE TABLE "customers" (
    "id" text,
    "org_id" text NOT NULL,
    "type" text NOT NULL,
    "full_name" text NOT NULL,
    "birth_date" text,
    "nationality" text,
    "country" text,
    "identifiers" text,
    "external_id" text,
    "monitoring" numeric NOT NULL DEFAULT false,
    "status" text NOT NULL,
    "created_at" datetime,
    "updated_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX "ix_customers_org_created" ON "customers" ("org_id", "created_at");
CREATE INDEX "idx_customers_external_id" ON "customers" ("external_id");
CREATE INDEX "idx_customers_status" ON "customers" ("status");

-- +goose Down
DROP TABLE "customers";
