-- The fraud product's tables: rule sets and their four-eyes versions, decisions with their
-- evidence, pre-aggregated velocity counters and last-seen values, customers and devices first
-- seen, device sessions, value lists, alerts and backtests.

-- +goose Up
CREATE TABLE "fraud_rule_sets" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"name" varchar(200) NOT NULL,"applies_to" varchar(64) NOT NULL,"latest_version" bigint NOT NULL,"published_version" bigint NOT NULL,"shadow_version" bigint NOT NULL,"created_by" varchar(40),"created_at" timestamptz,"updated_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX IF NOT EXISTS "ix_fraud_rule_sets_org_created" ON "fraud_rule_sets" ("org_id","created_at");
CREATE UNIQUE INDEX IF NOT EXISTS "ux_fraud_rule_sets_org_applies" ON "fraud_rule_sets" ("org_id","applies_to");
CREATE TABLE "fraud_rule_set_versions" ("rule_set_id" varchar(40),"version" bigint,"org_id" varchar(40) NOT NULL,"status" varchar(20) NOT NULL,"spec" text NOT NULL,"drafted_by" varchar(40) NOT NULL,"submitted_by" varchar(40),"decided_by" varchar(40),"published_by" varchar(40),"created_at" timestamptz,"updated_at" timestamptz,PRIMARY KEY ("rule_set_id","version"));
CREATE INDEX IF NOT EXISTS "idx_fraud_rule_set_versions_org_id" ON "fraud_rule_set_versions" ("org_id");
CREATE TABLE "fraud_decisions" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"kind" varchar(16) NOT NULL,"event_type" varchar(64) NOT NULL,"transaction_id" varchar(128),"customer_id" varchar(128) NOT NULL,"amount_minor" bigint,"currency" varchar(3),"occurred_at" timestamptz,"outcome" varchar(20) NOT NULL,"score" bigint NOT NULL,"rule_set_id" varchar(40),"rule_set_version" bigint,"result" text NOT NULL,"shadow_version" bigint,"shadow" text,"snapshot" text NOT NULL,"external_id" varchar(200),"review_status" varchar(20) NOT NULL,"reviewed_by" varchar(40),"review_note" varchar(2000),"reviewed_at" timestamptz,"created_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX IF NOT EXISTS "idx_fraud_decisions_external_id" ON "fraud_decisions" ("external_id");
CREATE INDEX IF NOT EXISTS "idx_fraud_decisions_customer_id" ON "fraud_decisions" ("customer_id");
CREATE INDEX IF NOT EXISTS "idx_fraud_decisions_transaction_id" ON "fraud_decisions" ("transaction_id");
CREATE INDEX IF NOT EXISTS "ix_fraud_decisions_org_occurred" ON "fraud_decisions" ("org_id","occurred_at");
CREATE INDEX IF NOT EXISTS "ix_fraud_decisions_org_created" ON "fraud_decisions" ("org_id","created_at");
CREATE TABLE "fraud_velocity_counters" ("org_id" varchar(40),"dimension" varchar(16),"entity" varchar(256),"bucket_size" bigint,"bucket_start" bigint,"currency" varchar(3),"events" bigint NOT NULL,"amount_minor" bigint NOT NULL,PRIMARY KEY ("org_id","dimension","entity","bucket_size","bucket_start","currency"));
CREATE TABLE "fraud_velocity_seen" ("org_id" varchar(40),"dimension" varchar(16),"entity" varchar(256),"attribute" varchar(16),"value" varchar(256),"last_seen" bigint NOT NULL,PRIMARY KEY ("org_id","dimension","entity","attribute","value"));
CREATE INDEX IF NOT EXISTS "ix_fraud_velocity_seen_window" ON "fraud_velocity_seen" ("org_id","dimension","entity","attribute","last_seen");
CREATE TABLE "fraud_subjects" ("org_id" varchar(40),"kind" varchar(16),"subject_id" varchar(256),"first_seen_ms" bigint NOT NULL,"last_seen_ms" bigint NOT NULL,PRIMARY KEY ("org_id","kind","subject_id"));
CREATE TABLE "fraud_device_sessions" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"device_id" varchar(128) NOT NULL,"customer_id" varchar(128),"ip" varchar(64),"country" varchar(2),"signals" text,"external_id" varchar(200),"created_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX IF NOT EXISTS "idx_fraud_device_sessions_device_id" ON "fraud_device_sessions" ("device_id");
CREATE INDEX IF NOT EXISTS "idx_fraud_device_sessions_org_id" ON "fraud_device_sessions" ("org_id");
CREATE TABLE "fraud_values" ("org_id" varchar(40),"list" varchar(64),"value" varchar(256),"created_at" timestamptz,PRIMARY KEY ("org_id","list","value"));
CREATE TABLE "fraud_alerts" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"decision_id" varchar(40) NOT NULL,"customer_id" varchar(128) NOT NULL,"outcome" varchar(20) NOT NULL,"score" bigint NOT NULL,"reason_codes" text,"status" varchar(16) NOT NULL,"created_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX IF NOT EXISTS "idx_fraud_alerts_created_at" ON "fraud_alerts" ("created_at");
CREATE UNIQUE INDEX IF NOT EXISTS "idx_fraud_alerts_decision_id" ON "fraud_alerts" ("decision_id");
CREATE INDEX IF NOT EXISTS "idx_fraud_alerts_org_id" ON "fraud_alerts" ("org_id");
CREATE TABLE "fraud_backtests" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"rule_set_id" varchar(40) NOT NULL,"version" bigint NOT NULL,"range_from" timestamptz,"range_to" timestamptz,"status" varchar(16) NOT NULL,"total" bigint NOT NULL,"done" bigint NOT NULL,"report" text,"error" varchar(1000),"created_by" varchar(40),"created_at" timestamptz,"completed_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX IF NOT EXISTS "idx_fraud_backtests_org_id" ON "fraud_backtests" ("org_id");

-- +goose Down
DROP TABLE fraud_backtests;
DROP TABLE fraud_alerts;
DROP TABLE fraud_values;
DROP TABLE fraud_device_sessions;
DROP TABLE fraud_subjects;
DROP TABLE fraud_velocity_seen;
DROP TABLE fraud_velocity_counters;
DROP TABLE fraud_decisions;
DROP TABLE fraud_rule_set_versions;
DROP TABLE fraud_rule_sets;
