-- Migration 1: the schema of the release before versioned migrations, exactly as GORM's AutoMigrate
-- created it on PostgreSQL. IF NOT EXISTS everywhere: a database that release created is upgraded by
-- recording this version, its tables and rows untouched. No Down: the baseline is never undone.

-- +goose Up
CREATE TABLE IF NOT EXISTS "organizations" (
    "id" varchar(40),
    "name" varchar(200) NOT NULL,
    "created_at" timestamptz,
    PRIMARY KEY ("id")
);

CREATE TABLE IF NOT EXISTS "users" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "email" varchar(320) NOT NULL,
    "name" varchar(200),
    "role" varchar(40) NOT NULL,
    "password_hash" varchar(200),
    "disabled" boolean NOT NULL DEFAULT false,
    "created_at" timestamptz,
    "updated_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_users_org_id" ON "users" ("org_id");
CREATE UNIQUE INDEX IF NOT EXISTS "ux_users_email" ON "users" ("email");
CREATE UNIQUE INDEX IF NOT EXISTS "ux_users_org_email" ON "users" ("org_id","email");

CREATE TABLE IF NOT EXISTS "api_keys" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "name" varchar(200) NOT NULL,
    "environment" varchar(16) NOT NULL,
    "hash" varchar(64) NOT NULL,
    "last4" varchar(4) NOT NULL,
    "scopes" text NOT NULL,
    "act_as_user_id" varchar(40),
    "caller_service_slug" varchar(100),
    "expires_at" timestamptz,
    "revoked_at" timestamptz,
    "revokes_at" timestamptz,
    "rotated_to_id" varchar(40),
    "last_used_at" timestamptz,
    "created_at" timestamptz,
    "updated_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX IF NOT EXISTS "idx_api_keys_hash" ON "api_keys" ("hash");
CREATE INDEX IF NOT EXISTS "idx_api_keys_org_id" ON "api_keys" ("org_id");

CREATE TABLE IF NOT EXISTS "sessions" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "user_id" varchar(40) NOT NULL,
    "token_hash" varchar(64) NOT NULL,
    "csrf_token" varchar(64) NOT NULL,
    "expires_at" timestamptz,
    "revoked_at" timestamptz,
    "created_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_sessions_org_id" ON "sessions" ("org_id");
CREATE UNIQUE INDEX IF NOT EXISTS "idx_sessions_token_hash" ON "sessions" ("token_hash");
CREATE INDEX IF NOT EXISTS "idx_sessions_user_id" ON "sessions" ("user_id");

CREATE TABLE IF NOT EXISTS "audit_logs" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "environment" varchar(16) NOT NULL,
    "user_id" varchar(40),
    "api_key_id" varchar(40),
    "session_id" varchar(40),
    "caller_service_slug" varchar(100),
    "action" varchar(200) NOT NULL,
    "resource_id" varchar(100),
    "request_id" varchar(128),
    "status" bigint,
    "created_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "ix_audit_org_time" ON "audit_logs" ("org_id","created_at");

-- Counters are short-lived: UNLOGGED skips the WAL (about 1.6 times the authenticated
-- throughput in bench/authn); they need not survive a crash or reach replicas.
CREATE UNLOGGED TABLE IF NOT EXISTS "rate_limit_counters" (
    "bucket_key" varchar(200),
    "window_start" bigint,
    "hits" bigint NOT NULL,
    "expires_at" bigint NOT NULL,
    PRIMARY KEY ("bucket_key","window_start")
);
-- A table an older release created logged; a no-op when it is already UNLOGGED.
ALTER TABLE "rate_limit_counters" SET UNLOGGED;
CREATE INDEX IF NOT EXISTS "idx_rate_limit_counters_expires_at" ON "rate_limit_counters" ("expires_at");

CREATE TABLE IF NOT EXISTS "rate_limit_overrides" (
    "org_id" varchar(40),
    "bucket" varchar(40),
    "max_requests" bigint NOT NULL,
    "window_seconds" bigint NOT NULL,
    "updated_at" timestamptz,
    PRIMARY KEY ("org_id","bucket")
);

CREATE TABLE IF NOT EXISTS "idempotency_records" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "environment" varchar(16) NOT NULL,
    "endpoint" varchar(200) NOT NULL,
    "external_id" varchar(200) NOT NULL,
    "request_hash" varchar(64) NOT NULL,
    "state" varchar(16) NOT NULL,
    "status" bigint,
    "body" bytea,
    "created_at" timestamptz,
    "expires_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_idempotency_records_expires_at" ON "idempotency_records" ("expires_at");
CREATE UNIQUE INDEX IF NOT EXISTS "ux_idempotency_scope" ON "idempotency_records" ("org_id","environment","endpoint","external_id");

CREATE TABLE IF NOT EXISTS "pings" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "message" varchar(500),
    "status" varchar(20) NOT NULL,
    "echo" varchar(500),
    "created_at" timestamptz,
    "completed_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_pings_org_id" ON "pings" ("org_id");

CREATE TABLE IF NOT EXISTS "webhook_subscriptions" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "url" varchar(2048) NOT NULL,
    "events" text NOT NULL,
    "active" boolean NOT NULL,
    "secret_sealed" varchar(255) NOT NULL,
    "created_at" timestamptz,
    "updated_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_webhook_subscriptions_org_id" ON "webhook_subscriptions" ("org_id");

CREATE TABLE IF NOT EXISTS "events" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "name" varchar(100) NOT NULL,
    "occurred_at" timestamptz NOT NULL,
    "body" bytea NOT NULL,
    "created_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_events_org_id" ON "events" ("org_id");

CREATE TABLE IF NOT EXISTS "deliveries" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "subscription_id" varchar(40) NOT NULL,
    "event_id" varchar(40) NOT NULL,
    "event_name" varchar(100) NOT NULL,
    "status" varchar(16) NOT NULL,
    "attempts" bigint NOT NULL,
    "last_status_code" bigint,
    "last_latency_ms" bigint,
    "last_error" varchar(1024),
    "next_attempt_at" timestamptz,
    "created_at" timestamptz,
    "updated_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_deliveries_event_id" ON "deliveries" ("event_id");
CREATE INDEX IF NOT EXISTS "idx_deliveries_org_id" ON "deliveries" ("org_id");
CREATE INDEX IF NOT EXISTS "idx_deliveries_subscription_id" ON "deliveries" ("subscription_id");

CREATE TABLE IF NOT EXISTS "delivery_attempts" (
    "delivery_id" varchar(40),
    "attempt" bigint,
    "org_id" varchar(40) NOT NULL,
    "attempted_at" timestamptz NOT NULL,
    "status_code" bigint,
    "latency_ms" bigint,
    "retry_after_seconds" bigint,
    "response_body" varchar(1024),
    "error" varchar(1024),
    PRIMARY KEY ("delivery_id","attempt")
);
CREATE INDEX IF NOT EXISTS "idx_delivery_attempts_org_id" ON "delivery_attempts" ("org_id");

CREATE TABLE IF NOT EXISTS "workflows" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "slug" varchar(100) NOT NULL,
    "name" varchar(200) NOT NULL,
    "latest_version" bigint NOT NULL,
    "created_by" varchar(40),
    "created_at" timestamptz,
    "updated_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_workflows_org_id" ON "workflows" ("org_id");
CREATE UNIQUE INDEX IF NOT EXISTS "ux_workflows_org_slug" ON "workflows" ("org_id","slug");

CREATE TABLE IF NOT EXISTS "workflow_versions" (
    "workflow_id" varchar(40),
    "version" bigint,
    "org_id" varchar(40) NOT NULL,
    "definition" text NOT NULL,
    "created_by" varchar(40),
    "created_at" timestamptz,
    PRIMARY KEY ("workflow_id","version")
);
CREATE INDEX IF NOT EXISTS "idx_workflow_versions_org_id" ON "workflow_versions" ("org_id");

CREATE TABLE IF NOT EXISTS "executions" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "workflow_id" varchar(40) NOT NULL,
    "workflow_slug" varchar(100) NOT NULL,
    "workflow_version" bigint NOT NULL,
    "status" varchar(16) NOT NULL,
    "inputs" text,
    "output" text,
    "external_id" varchar(200),
    "started_by" varchar(40),
    "run_id" varchar(64),
    "failed_step_id" varchar(40),
    "error_message" text,
    "cancel_reason" varchar(1000),
    "cancelled_by" varchar(40),
    "created_at" timestamptz,
    "started_at" timestamptz,
    "completed_at" timestamptz,
    "updated_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_executions_external_id" ON "executions" ("external_id");
CREATE INDEX IF NOT EXISTS "idx_executions_status" ON "executions" ("status");
CREATE INDEX IF NOT EXISTS "idx_executions_workflow_id" ON "executions" ("workflow_id");
CREATE INDEX IF NOT EXISTS "ix_executions_org_created" ON "executions" ("org_id","created_at");

CREATE TABLE IF NOT EXISTS "steps" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "execution_id" varchar(40) NOT NULL,
    "node_id" varchar(64) NOT NULL,
    "kind" varchar(40) NOT NULL,
    "status" varchar(16) NOT NULL,
    "attempts" bigint NOT NULL,
    "output" text,
    "error" text,
    "started_at" timestamptz,
    "completed_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_steps_org_id" ON "steps" ("org_id");
CREATE UNIQUE INDEX IF NOT EXISTS "ux_steps_execution_node" ON "steps" ("execution_id","node_id");

CREATE TABLE IF NOT EXISTS "approvals" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "execution_id" varchar(40) NOT NULL,
    "step_id" varchar(40) NOT NULL,
    "node_id" varchar(64) NOT NULL,
    "action_label" varchar(1000) NOT NULL,
    "assign_to" varchar(200) NOT NULL,
    "data" text,
    "status" varchar(16) NOT NULL,
    "started_by" varchar(40),
    "decided_by" varchar(40),
    "comment" varchar(2000),
    "timed_out" boolean NOT NULL DEFAULT false,
    "expires_at" timestamptz,
    "decided_at" timestamptz,
    "created_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_approvals_assign_to" ON "approvals" ("assign_to");
CREATE INDEX IF NOT EXISTS "idx_approvals_execution_id" ON "approvals" ("execution_id");
CREATE UNIQUE INDEX IF NOT EXISTS "idx_approvals_step_id" ON "approvals" ("step_id");
CREATE INDEX IF NOT EXISTS "ix_approvals_org_status" ON "approvals" ("org_id","status");

CREATE TABLE IF NOT EXISTS "documents" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "status" varchar(20) NOT NULL,
    "type" varchar(64),
    "type_hint" varchar(64),
    "filename" varchar(255) NOT NULL,
    "format" varchar(8) NOT NULL,
    "size" bigint NOT NULL,
    "sha256" varchar(64) NOT NULL,
    "blob_key" varchar(100) NOT NULL,
    "text_key" varchar(100),
    "external_ref" varchar(200),
    "external_id" varchar(200),
    "password_sealed" text,
    "classification_confidence" decimal,
    "template_id" varchar(40),
    "confidence_score" decimal,
    "flags" text,
    "failed_stage" varchar(16),
    "error_message" varchar(1000),
    "latest_extraction_id" varchar(40),
    "uploaded_by" varchar(40),
    "created_at" timestamptz,
    "updated_at" timestamptz,
    "completed_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_documents_external_id" ON "documents" ("external_id");
CREATE INDEX IF NOT EXISTS "idx_documents_sha256" ON "documents" ("sha256");
CREATE INDEX IF NOT EXISTS "idx_documents_status" ON "documents" ("status");
CREATE INDEX IF NOT EXISTS "idx_documents_type" ON "documents" ("type");
CREATE INDEX IF NOT EXISTS "ix_documents_org_created" ON "documents" ("org_id","created_at");

CREATE TABLE IF NOT EXISTS "extractions" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "document_id" varchar(40) NOT NULL,
    "type" varchar(64) NOT NULL,
    "template_id" varchar(40),
    "source" varchar(16) NOT NULL,
    "status" varchar(20) NOT NULL,
    "confidence_score" decimal NOT NULL,
    "fields" text,
    "flags" text,
    "previous_extraction_id" varchar(40),
    "actor_user_id" varchar(40),
    "created_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "ix_extractions_org_document" ON "extractions" ("org_id","document_id");

CREATE TABLE IF NOT EXISTS "templates" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "type" varchar(64) NOT NULL,
    "must_include" text,
    "must_exclude" text,
    "fields" text,
    "created_by" varchar(40),
    "created_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX IF NOT EXISTS "ux_templates_org_type" ON "templates" ("org_id","type");

CREATE TABLE IF NOT EXISTS "document_settings" (
    "org_id" varchar(40),
    "threshold" decimal NOT NULL,
    "updated_at" timestamptz,
    PRIMARY KEY ("org_id")
);
