-- AI automation: the daily token ledger, the audit record of every model exchange, and the
-- runs of the built-in automations.

-- +goose Up
CREATE TABLE "ai_token_usages" (
    "org_id" text,
    "day" text,
    "tokens" integer NOT NULL,
    "updated_at" datetime,
    PRIMARY KEY ("org_id","day")
);

CREATE TABLE "ai_exchanges" (
    "id" text,
    "org_id" text NOT NULL,
    "execution_id" text,
    "step_id" text,
    "run_id" text,
    "model" text,
    "usage" text,
    "latency_ms" integer NOT NULL,
    "attempts" integer NOT NULL,
    "policy" text NOT NULL,
    "conversation" text,
    "error" text,
    "created_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX "idx_ai_exchanges_org_id" ON "ai_exchanges" ("org_id");
CREATE INDEX "idx_ai_exchanges_execution_id" ON "ai_exchanges" ("execution_id");
CREATE INDEX "idx_ai_exchanges_step_id" ON "ai_exchanges" ("step_id");
CREATE INDEX "idx_ai_exchanges_run_id" ON "ai_exchanges" ("run_id");

CREATE TABLE "automation_runs" (
    "id" text,
    "org_id" text NOT NULL,
    "kind" text NOT NULL,
    "subject_id" text NOT NULL,
    "status" text NOT NULL,
    "external_id" text,
    "result" text,
    "model" text,
    "usage" text,
    "error" text,
    "created_by" text,
    "created_at" datetime,
    "updated_at" datetime,
    "completed_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX "ix_automation_runs_org_created" ON "automation_runs" ("org_id","created_at");
CREATE INDEX "idx_automation_runs_subject_id" ON "automation_runs" ("subject_id");

-- +goose Down
DROP TABLE "automation_runs";
DROP TABLE "ai_exchanges";
DROP TABLE "ai_token_usages";
