-- AI automation: the daily token ledger, the audit record of every model exchange, and the
-- runs of the built-in automations.

-- +goose Up
CREATE TABLE "ai_token_usages" (
    "org_id" varchar(40),
    "day" varchar(10),
    "tokens" bigint NOT NULL,
    "updated_at" timestamptz,
    PRIMARY KEY ("org_id","day")
);

CREATE TABLE "ai_exchanges" (
    "id" varchar(64),
    "org_id" varchar(40) NOT NULL,
    "execution_id" varchar(40),
    "step_id" varchar(40),
    "run_id" varchar(40),
    "model" varchar(200),
    "usage" text,
    "latency_ms" bigint NOT NULL,
    "attempts" bigint NOT NULL,
    "policy" varchar(16) NOT NULL,
    "conversation" text,
    "error" text,
    "created_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX "idx_ai_exchanges_org_id" ON "ai_exchanges" ("org_id");
CREATE INDEX "idx_ai_exchanges_execution_id" ON "ai_exchanges" ("execution_id");
CREATE INDEX "idx_ai_exchanges_step_id" ON "ai_exchanges" ("step_id");
CREATE INDEX "idx_ai_exchanges_run_id" ON "ai_exchanges" ("run_id");

CREATE TABLE "automation_runs" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "kind" varchar(40) NOT NULL,
    "subject_id" varchar(40) NOT NULL,
    "status" varchar(16) NOT NULL,
    "external_id" varchar(200),
    "result" text,
    "model" varchar(200),
    "usage" text,
    "error" text,
    "created_by" varchar(40),
    "created_at" timestamptz,
    "updated_at" timestamptz,
    "completed_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX "ix_automation_runs_org_created" ON "automation_runs" ("org_id","created_at");
CREATE INDEX "idx_automation_runs_subject_id" ON "automation_runs" ("subject_id");

-- +goose Down
DROP TABLE "automation_runs";
DROP TABLE "ai_exchanges";
DROP TABLE "ai_token_usages";
