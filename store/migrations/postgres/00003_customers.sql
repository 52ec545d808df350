-- +goose Up
CREATE TABLE "customers" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "type" varchar(16) NOT NULL,
    "full_name" varchar(300) NOT NULL,
    "birth_date" varchar(10),
    "nationality" varchar(2),
    "country" varchar(2),
    "identifiers" text,
    "external_id" varchar(200),
    "monitoring" boolean NOT NULL DEFAULT false,
    "status" varchar(16) NOT NULL,
    "created_at" timestamptz,
    "updated_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX "ix_customers_org_created" ON "customers" ("org_id", "created_at");
CREATE INDEX "idx_customers_external_id" ON "customers" ("external_id");
CREATE INDEX "idx_customers_status" ON "customers" ("status");

-- +goose Down
DROP TABLE "customers";
