-- +goose Up
-- Fraud alerts move into the one alerts table of the cases product (02000).
INSERT INTO "alerts" ("id","org_id","source","source_ref","subject","dedupe_key","customer_id","score","summary","reason_codes","details","status","case_id","created_at","updated_at")
SELECT "id","org_id",'fraud',"decision_id",'','fraud:' || "decision_id","customer_id","score","outcome" || ': score ' || "score","reason_codes",'{"outcome":"' || "outcome" || '"}',"status",'',"created_at","created_at" FROM "fraud_alerts";
DROP TABLE "fraud_alerts";

-- +goose Down
CREATE TABLE "fraud_alerts" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"decision_id" varchar(40) NOT NULL,"customer_id" varchar(128) NOT NULL,"outcome" varchar(20) NOT NULL,"score" bigint NOT NULL,"reason_codes" text,"status" varchar(16) NOT NULL,"created_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX IF NOT EXISTS "idx_fraud_alerts_created_at" ON "fraud_alerts" ("created_at");
CREATE UNIQUE INDEX IF NOT EXISTS "idx_fraud_alerts_decision_id" ON "fraud_alerts" ("decision_id");
CREATE INDEX IF NOT EXISTS "idx_fraud_alerts_org_id" ON "fraud_alerts" ("org_id");
