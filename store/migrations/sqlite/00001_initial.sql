-- Migration 1: the schema of the release before versioned migrations, exactly as GORM's AutoMigrate
-- created it on SQLite. IF NOT EXISTS everywhere: a database that release created is upgraded by
-- recording this version, its tables and rows untouched. No Down: the baseline is never undone.

-- +goose Up
CREATE TABLE IF NOT EXISTS "organizations" (
    "id" text,
    "name" text NOT NULL,
    "created_at" datetime,
    PRIMARY KEY ("id")
);

CREATE TABLE IF NOT EXISTS "users" (
    "id" text,
    "org_id" text NOT NULL,
    "email" text NOT NULL,
    "name" text,
    "role" text NOT NULL,
    "password_hash" text,
    "disabled" numeric NOT NULL DEFAULT false,
    "created_at" datetime,
    "updated_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_users_org_id" ON "users" ("org_id");
CREATE UNIQUE INDEX IF NOT EXISTS "ux_users_email" ON "users" ("email");
CREATE UNIQUE INDEX IF NOT EXISTS "ux_users_org_email" ON "users" ("org_id","email");

CREATE TABLE IF NOT EXISTS "api_keys" (
    "id" text,
    "org_id" text NOT NULL,
    "name" text NOT NULL,
    "environment" text NOT NULL,
    "hash" text NOT NULL,
    "last4" text NOT NULL,
    "scopes" text NOT NULL,
    "act_as_user_id" text,
    "caller_service_slug" text,
    "expires_at" datetime,
    "revoked_at" datetime,
    "revokes_at" datetime,
    "rotated_to_id" text,
    "last_used_at" datetime,
    "created_at" datetime,
    "updated_at" datetime,
    PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX IF NOT EXISTS "idx_api_keys_hash" ON "api_keys" ("hash");
CREATE INDEX IF NOT EXISTS "idx_api_keys_org_id" ON "api_keys" ("org_id");

CREATE TABLE IF NOT EXISTS "sessions" (
    "id" text,
    "org_id" text NOT NULL,
    "user_id" text NOT NULL,
    "token_hash" text NOT NULL,
    "csrf_token" text NOT NULL,
    "expires_at" datetime,
    "revoked_at" datetime,
    "created_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_sessions_org_id" ON "sessions" ("org_id");
CREATE UNIQUE INDEX IF NOT EXISTS "idx_sessions_token_hash" ON "sessions" ("token_hash");
CREATE INDEX IF NOT EXISTS "idx_sessions_user_id" ON "sessions" ("user_id");

CREATE TABLE IF NOT EXISTS "audit_logs" (
    "id" text,
    "org_id" text NOT NULL,
    "environment" text NOT NULL,
    "user_id" text,
    "api_key_id" text,
    "session_id" text,
    "caller_service_slug" text,
    "action" text NOT NULL,
    "resource_id" text,
    "request_id" text,
    "status" integer,
    "created_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "ix_audit_org_time" ON "audit_logs" ("org_id","created_at");

CREATE TABLE IF NOT EXISTS "rate_limit_counters" (
    "bucket_key" text,
    "window_start" integer,
    "hits" integer NOT NULL,
    "expires_at" integer NOT NULL,
    PRIMARY KEY ("bucket_key","window_start")
);
CREATE INDEX IF NOT EXISTS "idx_rate_limit_counters_expires_at" ON "rate_limit_counters" ("expires_at");

CREATE TABLE IF NOT EXISTS "rate_limit_overrides" (
    "org_id" text,
    "bucket" text,
    "max_requests" integer NOT NULL,
    "window_seconds" integer NOT NULL,
    "updated_at" datetime,
    PRIMARY KEY ("org_id","bucket")
);

CREATE TABLE IF NOT EXISTS "idempotency_records" (
    "id" text,
    "org_id" text NOT NULL,
    "environment" text NOT NULL,
    "endpoint" text NOT NULL,
    "external_id" text NOT NULL,
    "request_hash" text NOT NULL,
    "state" text NOT NULL,
    "status" integer,
    "body" blob,
    "created_at" datetime,
    "expires_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_idempotency_records_expires_at" ON "idempotency_records" ("expires_at");
CREATE UNIQUE INDEX IF NOT EXISTS "ux_idempotency_scope" ON "idempotency_records" ("org_id","environment","endpoint","external_id");

CREATE TABLE IF NOT EXISTS "pings" (
    "id" text,
    "org_id" text NOT NULL,
    "message" text,
    "status" text NOT NULL,
    "echo" text,
    "created_at" datetime,
    "completed_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_pings_org_id" ON "pings" ("org_id");

CREATE TABLE IF NOT EXISTS "webhook_subscriptions" (
    "id" text,
    "org_id" text NOT NULL,
    "url" text NOT NULL,
    "events" text NOT NULL,
    "active" numeric NOT NULL,
    "secret_sealed" text NOT NULL,
    "created_at" datetime,
    "updated_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_webhook_subscriptions_org_id" ON "webhook_subscriptions" ("org_id");

CREATE TABLE IF NOT EXISTS "events" (
    "id" text,
    "org_id" text NOT NULL,
    "name" text NOT NULL,
    "occurred_at" datetime NOT NULL,
    "body" blob NOT NULL,
    "created_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_events_org_id" ON "events" ("org_id");

CREATE TABLE IF NOT EXISTS "deliveries" (
    "id" text,
    "org_id" text NOT NULL,
    "subscription_id" text NOT NULL,
    "event_id" text NOT NULL,
    "event_name" text NOT NULL,
    "status" text NOT NULL,
    "attempts" integer NOT NULL,
    "last_status_code" integer,
    "last_latency_ms" integer,
    "last_error" text,
    "next_attempt_at" datetime,
    "created_at" datetime,
    "updated_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_deliveries_event_id" ON "deliveries" ("event_id");
CREATE INDEX IF NOT EXISTS "idx_deliveries_org_id" ON "deliveries" ("org_id");
CREATE INDEX IF NOT EXISTS "idx_deliveries_subscription_id" ON "deliveries" ("subscription_id");

CREATE TABLE IF NOT EXISTS "delivery_attempts" (
    "delivery_id" text,
    "attempt" integer,
    "org_id" text NOT NULL,
    "attempted_at" datetime NOT NULL,
    "status_code" integer,
    "latency_ms" integer,
    "retry_after_seconds" integer,
    "response_body" text,
    "error" text,
    PRIMARY KEY ("delivery_id","attempt")
);
CREATE INDEX IF NOT EXISTS "idx_delivery_attempts_org_id" ON "delivery_attempts" ("org_id");

CREATE TABLE IF NOT EXISTS "workflows" (
    "id" text,
    "org_id" text NOT NULL,
    "slug" text NOT NULL,
    "name" text NOT NULL,
    "latest_version" integer NOT NULL,
    "created_by" text,
    "created_at" datetime,
    "updated_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_workflows_org_id" ON "workflows" ("org_id");
CREATE UNIQUE INDEX IF NOT EXISTS "ux_workflows_org_slug" ON "workflows" ("org_id","slug");

CREATE TABLE IF NOT EXISTS "workflow_versions" (
    "workflow_id" text,
    "version" integer,
    "org_id" text NOT NULL,
    "definition" text NOT NULL,
    "created_by" text,
    "created_at" datetime,
    PRIMARY KEY ("workflow_id","version")
);
CREATE INDEX IF NOT EXISTS "idx_workflow_versions_org_id" ON "workflow_versions" ("org_id");

CREATE TABLE IF NOT EXISTS "executions" (
    "id" text,
    "org_id" text NOT NULL,
    "workflow_id" text NOT NULL,
    "workflow_slug" text NOT NULL,
    "workflow_version" integer NOT NULL,
    "status" text NOT NULL,
    "inputs" text,
    "output" text,
    "external_id" text,
    "started_by" text,
    "run_id" text,
    "failed_step_id" text,
    "error_message" text,
    "cancel_reason" text,
    "cancelled_by" text,
    "created_at" datetime,
    "started_at" datetime,
    "completed_at" datetime,
    "updated_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_executions_external_id" ON "executions" ("external_id");
CREATE INDEX IF NOT EXISTS "idx_executions_status" ON "executions" ("status");
CREATE INDEX IF NOT EXISTS "idx_executions_workflow_id" ON "executions" ("workflow_id");
CREATE INDEX IF NOT EXISTS "ix_executions_org_created" ON "executions" ("org_id","created_at");

CREATE TABLE IF NOT EXISTS "steps" (
    "id" text,
    "org_id" text NOT NULL,
    "execution_id" text NOT NULL,
    "node_id" text NOT NULL,
    "kind" text NOT NULL,
    "status" text NOT NULL,
    "attempts" integer NOT NULL,
    "output" text,
    "error" text,
    "started_at" datetime,
    "completed_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_steps_org_id" ON "steps" ("org_id");
CREATE UNIQUE INDEX IF NOT EXISTS "ux_steps_execution_node" ON "steps" ("execution_id","node_id");

CREATE TABLE IF NOT EXISTS "approvals" (
    "id" text,
    "org_id" text NOT NULL,
    "execution_id" text NOT NULL,
    "step_id" text NOT NULL,
    "node_id" text NOT NULL,
    "action_label" text NOT NULL,
    "assign_to" text NOT NULL,
    "data" text,
    "status" text NOT NULL,
    "started_by" text,
    "decided_by" text,
    "comment" text,
    "timed_out" numeric NOT NULL DEFAULT false,
    "expires_at" datetime,
    "decided_at" datetime,
    "created_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_approvals_assign_to" ON "approvals" ("assign_to");
CREATE INDEX IF NOT EXISTS "idx_approvals_execution_id" ON "approvals" ("execution_id");
CREATE UNIQUE INDEX IF NOT EXISTS "idx_approvals_step_id" ON "approvals" ("step_id");
CREATE INDEX IF NOT EXISTS "ix_approvals_org_status" ON "approvals" ("org_id","status");

CREATE TABLE IF NOT EXISTS "documents" (
    "id" text,
    "org_id" text NOT NULL,
    "status" text NOT NULL,
    "type" text,
    "type_hint" text,
    "filename" text NOT NULL,
    "format" text NOT NULL,
    "size" integer NOT NULL,
    "sha256" text NOT NULL,
    "blob_key" text NOT NULL,
    "text_key" text,
    "external_ref" text,
    "external_id" text,
    "password_sealed" text,
    "classification_confidence" real,
    "template_id" text,
    "confidence_score" real,
    "flags" text,
    "failed_stage" text,
    "error_message" text,
    "latest_extraction_id" text,
    "uploaded_by" text,
    "created_at" datetime,
    "updated_at" datetime,
    "completed_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_documents_external_id" ON "documents" ("external_id");
CREATE INDEX IF NOT EXISTS "idx_documents_sha256" ON "documents" ("sha256");
CREATE INDEX IF NOT EXISTS "idx_documents_status" ON "documents" ("status");
CREATE INDEX IF NOT EXISTS "idx_documents_type" ON "documents" ("type");
CREATE INDEX IF NOT EXISTS "ix_documents_org_created" ON "documents" ("org_id","created_at");

CREATE TABLE IF NOT EXISTS "extractions" (
    "id" text,
    "org_id" text NOT NULL,
    "document_id" text NOT NULL,
    "type" text NOT NULL,
    "template_id" text,
    "source" text NOT NULL,
    "status" text NOT NULL,
    "confidence_score" real NOT NULL,
    "fields" text,
    "flags" text,
    "previous_extraction_id" text,
    "actor_user_id" text,
    "created_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "ix_extractions_org_document" ON "extractions" ("org_id","document_id");

CREATE TABLE IF NOT EXISTS "templates" (
    "id" text,
    "org_id" text NOT NULL,
    "type" text NOT NULL,
    "must_include" text,
    "must_exclude" text,
    "fields" text,
    "created_by" text,
    "created_at" datetime,
    PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX IF NOT EXISTS "ux_templates_org_type" ON "templates" ("org_id","type");

CREATE TABLE IF NOT EXISTS "document_settings" (
    "org_id" text,
    "threshold" real NOT NULL,
    "updated_at" datetime,
    PRIMARY KEY ("org_id")
);
