-- +goose Up
-- an organisation's bank statement templates (POST /api/statements/templates)
CREATE TABLE "statement_templates" ("id" varchar(40),"org_id" varchar(40) NOT NULL,"bank" varchar(200) NOT NULL,"template" text NOT NULL,"created_by" varchar(40),"created_at" timestamptz,PRIMARY KEY ("id"));
CREATE INDEX "idx_statement_templates_org_id" ON "statement_templates" ("org_id");

-- +goose Down
DROP TABLE "statement_templates";
