-- +goose Up
-- every decided version of a bank statement analysis (the pipeline's, then each correction's)
CREATE TABLE "analysis_versions" ("analysis_id" varchar(40),"version" bigint,"org_id" varchar(40) NOT NULL,"status" varchar(32) NOT NULL,"result" text NOT NULL,"corrections" text,"actor_user_id" varchar(40),"created_at" timestamptz,PRIMARY KEY ("analysis_id","version"));
CREATE INDEX "idx_analysis_versions_org_id" ON "analysis_versions" ("org_id");

-- +goose Down
DROP TABLE "analysis_versions";
