-- +goose Up
-- cases: cases with their timeline and evidence, and SAR filings (the cases product).
CREATE TABLE "cases" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"title" varchar(300) NOT NULL,"customer_id" varchar(128),"priority" varchar(16) NOT NULL,"status" varchar(16) NOT NULL,"assignee_id" varchar(40),"due_at" timestamptz,"proposed_by" varchar(40),"proposed_outcome" varchar(32),"proposed_rationale" text,"outcome" varchar(32),"rationale" text,"closed_by" varchar(40),"closed_at" timestamptz,"created_by" varchar(40),"summary" text,"summary_by" varchar(100),"started" boolean NOT NULL DEFAULT false,"created_at" timestamptz,"updated_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX IF NOT EXISTS "idx_cases_status" ON "cases" ("status");
CREATE INDEX IF NOT EXISTS "idx_cases_customer_id" ON "cases" ("customer_id");
CREATE INDEX IF NOT EXISTS "ix_cases_org_created" ON "cases" ("org_id","created_at");
CREATE TABLE "case_entries" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"case_id" varchar(40) NOT NULL,"kind" varchar(32) NOT NULL,"actor_id" varchar(40),"api_key_id" varchar(40),"body" text,"data" text,"created_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX IF NOT EXISTS "ix_case_entries_case" ON "case_entries" ("case_id","created_at");
CREATE TABLE "case_evidence" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"case_id" varchar(40) NOT NULL,"kind" varchar(32) NOT NULL,"ref_id" varchar(100) NOT NULL,"note" varchar(500),"added_by" varchar(40),"created_at" timestamptz,PRIMARY KEY ("id"));
CREATE UNIQUE INDEX IF NOT EXISTS "ux_case_evidence_ref" ON "case_evidence" ("case_id","ref_id");
CREATE TABLE "sar_filings" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"case_id" varchar(40) NOT NULL,"subjects" text,"activity_from" varchar(10) NOT NULL,"activity_to" varchar(10) NOT NULL,"amount" decimal,"currency" varchar(3) NOT NULL,"narrative" text NOT NULL,"status" varchar(16) NOT NULL,"filed_by_id" varchar(40) NOT NULL,"filed_by_key_id" varchar(40),"submitted_by_id" varchar(40),"submitted_by_key_id" varchar(40),"submitted_at" timestamptz,"reference" varchar(200),"reject_reason" varchar(1000),"last_error" varchar(1000),"attempts" bigint NOT NULL DEFAULT 0,"answered_at" timestamptz,"document" text,"pdf" bytea,"started" boolean NOT NULL DEFAULT false,"created_at" timestamptz,"updated_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX IF NOT EXISTS "idx_sar_filings_status" ON "sar_filings" ("status");
CREATE INDEX IF NOT EXISTS "idx_sar_filings_case_id" ON "sar_filings" ("case_id");
CREATE INDEX IF NOT EXISTS "ix_sar_filings_org_created" ON "sar_filings" ("org_id","created_at");

-- +goose Down
DROP TABLE "sar_filings";
DROP TABLE "case_evidence";
DROP TABLE "case_entries";
DROP TABLE "cases";
