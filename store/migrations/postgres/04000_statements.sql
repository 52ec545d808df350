-- +goose Up
-- bank statement analyses (the statements product, POST /api/analyses/upload)
CREATE TABLE IF NOT EXISTS "analyses" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"status" varchar(32) NOT NULL,"version" bigint NOT NULL,"failed_stage" varchar(32),"error_message" varchar(500),"external_ref" varchar(200),"external_id" varchar(200),"uploaded_by" varchar(40),"files" text NOT NULL,"password_sealed" text,"risk_score" bigint NOT NULL,"result" text,"created_at" timestamptz,"updated_at" timestamptz,"completed_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX IF NOT EXISTS "idx_analyses_status" ON "analyses" ("status");
CREATE INDEX IF NOT EXISTS "idx_analyses_external_id" ON "analyses" ("external_id");
CREATE INDEX IF NOT EXISTS "ix_analyses_org_created" ON "analyses" ("org_id","created_at");

-- +goose Down
DROP TABLE IF EXISTS "analyses";
