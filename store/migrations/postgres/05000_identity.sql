-- +goose Up
-- identity verifications and their attempts (the identity product, SPEC 4.2 GET /api/identity/attempts)
CREATE TABLE IF NOT EXISTS "identity_verifications" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"customer_id" varchar(40),"reference" varchar(200),"external_id" varchar(200),"status" varchar(32) NOT NULL,"claimed" text NOT NULL,"policy" text NOT NULL,"attempts" bigint NOT NULL,"reasons" text,"reviewed_by" varchar(40),"reviewed_at" timestamptz,"expires_at" timestamptz NOT NULL,"created_at" timestamptz,"updated_at" timestamptz,"completed_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX IF NOT EXISTS "idx_identity_verifications_status" ON "identity_verifications" ("status");
CREATE INDEX IF NOT EXISTS "idx_identity_verifications_external_id" ON "identity_verifications" ("external_id");
CREATE INDEX IF NOT EXISTS "idx_identity_verifications_customer_id" ON "identity_verifications" ("customer_id");
CREATE INDEX IF NOT EXISTS "ix_identity_verifications_org_created" ON "identity_verifications" ("org_id","created_at");
CREATE TABLE IF NOT EXISTS "identity_attempts" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"verification_id" varchar(40) NOT NULL,"customer_id" varchar(40),"number" bigint NOT NULL,"status" varchar(20) NOT NULL,"front_key" varchar(100),"back_key" varchar(100),"document" text,"checks" text,"outcome" varchar(32),"reasons" text,"created_at" timestamptz,"completed_at" timestamptz,"purged_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX IF NOT EXISTS "idx_identity_attempts_completed_at" ON "identity_attempts" ("completed_at");
CREATE INDEX IF NOT EXISTS "idx_identity_attempts_status" ON "identity_attempts" ("status");
CREATE INDEX IF NOT EXISTS "idx_identity_attempts_customer_id" ON "identity_attempts" ("customer_id");
CREATE INDEX IF NOT EXISTS "idx_identity_attempts_verification_id" ON "identity_attempts" ("verification_id");
CREATE INDEX IF NOT EXISTS "ix_identity_attempts_org_created" ON "identity_attempts" ("org_id","created_at");

-- +goose Down
DROP TABLE IF EXISTS "identity_attempts";
DROP TABLE IF EXISTS "identity_verifications";
