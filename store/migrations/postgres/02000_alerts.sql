-- +goose Up
-- alerts: the cases product's one intake (screening hits, fraud decisions needing a person).
CREATE TABLE "alerts" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"source" varchar(16) NOT NULL,"source_ref" varchar(40) NOT NULL,"subject" varchar(200),"dedupe_key" varchar(300) NOT NULL,"customer_id" varchar(128),"score" decimal,"summary" varchar(500),"reason_codes" text,"details" text,"status" varchar(16) NOT NULL,"case_id" varchar(40),"created_at" timestamptz,"updated_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX IF NOT EXISTS "ix_alerts_org_created" ON "alerts" ("org_id","created_at");
CREATE UNIQUE INDEX IF NOT EXISTS "ux_alerts_org_dedupe" ON "alerts" ("org_id","dedupe_key");
CREATE INDEX IF NOT EXISTS "idx_alerts_source_ref" ON "alerts" ("source_ref");
CREATE INDEX IF NOT EXISTS "idx_alerts_customer_id" ON "alerts" ("customer_id");
CREATE INDEX IF NOT EXISTS "idx_alerts_status" ON "alerts" ("status");
CREATE INDEX IF NOT EXISTS "idx_alerts_case_id" ON "alerts" ("case_id");

-- +goose Down
DROP TABLE "alerts";
