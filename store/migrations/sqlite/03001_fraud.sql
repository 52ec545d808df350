-- The fraud product's tables: rule sets and their four-eyes versions, decisions with their
-- evidence, pre-aggregated velocity counters and last-seen values, customers and devices first
-- seen, device sessions, value lists, alerts and backtests.

-- +goose Up
CREATE TABLE `fraud_rule_sets` (`id` text,`org_id` text NOT NULL,`name` text NOT NULL,`applies_to` text NOT NULL,`latest_version` integer NOT NULL,`published_version` integer NOT NULL,`shadow_version` integer NOT NULL,`created_by` text,`created_at` datetime,`updated_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX `ix_fraud_rule_sets_org_created` ON `fraud_rule_sets`(`org_id`,`created_at`);
CREATE UNIQUE INDEX `ux_fraud_rule_sets_org_applies` ON `fraud_rule_sets`(`org_id`,`applies_to`);
CREATE TABLE `fraud_rule_set_versions` (`rule_set_id` text,`version` integer,`org_id` text NOT NULL,`status` text NOT NULL,`spec` text NOT NULL,`drafted_by` text NOT NULL,`submitted_by` text,`decided_by` text,`published_by` text,`created_at` datetime,`updated_at` datetime,PRIMARY KEY (`rule_set_id`,`version`));
CREATE INDEX `idx_fraud_rule_set_versions_org_id` ON `fraud_rule_set_versions`(`org_id`);
CREATE TABLE `fraud_decisions` (`id` text,`org_id` text NOT NULL,`kind` text NOT NULL,`event_type` text NOT NULL,`transaction_id` text,`customer_id` text NOT NULL,`amount_minor` integer,`currency` text,`occurred_at` datetime,`outcome` text NOT NULL,`score` integer NOT NULL,`rule_set_id` text,`rule_set_version` integer,`result` text NOT NULL,`shadow_version` integer,`shadow` text,`snapshot` text NOT NULL,`external_id` text,`review_status` text NOT NULL,`reviewed_by` text,`review_note` text,`reviewed_at` datetime,`created_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX `idx_fraud_decisions_external_id` ON `fraud_decisions`(`external_id`);
CREATE INDEX `idx_fraud_decisions_customer_id` ON `fraud_decisions`(`customer_id`);
CREATE INDEX `idx_fraud_decisions_transaction_id` ON `fraud_decisions`(`transaction_id`);
CREATE INDEX `ix_fraud_decisions_org_occurred` ON `fraud_decisions`(`org_id`,`occurred_at`);
CREATE INDEX `ix_fraud_decisions_org_created` ON `fraud_decisions`(`org_id`,`created_at`);
CREATE TABLE `fraud_velocity_counters` (`org_id` text,`dimension` text,`entity` text,`bucket_size` integer,`bucket_start` integer,`currency` text,`events` integer NOT NULL,`amount_minor` integer NOT NULL,PRIMARY KEY (`org_id`,`dimension`,`entity`,`bucket_size`,`bucket_start`,`currency`));
CREATE TABLE `fraud_velocity_seen` (`org_id` text,`dimension` text,`entity` text,`attribute` text,`value` text,`last_seen` integer NOT NULL,PRIMARY KEY (`org_id`,`dimension`,`entity`,`attribute`,`value`));
CREATE INDEX `ix_fraud_velocity_seen_window` ON `fraud_velocity_seen`(`org_id`,`dimension`,`entity`,`attribute`,`last_seen`);
CREATE TABLE `fraud_subjects` (`org_id` text,`kind` text,`subject_id` text,`first_seen_ms` integer NOT NULL,`last_seen_ms` integer NOT NULL,PRIMARY KEY (`org_id`,`kind`,`subject_id`));
CREATE TABLE `fraud_device_sessions` (`id` text,`org_id` text NOT NULL,`device_id` text NOT NULL,`customer_id` text,`ip` text,`country` text,`signals` text,`external_id` text,`created_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX `idx_fraud_device_sessions_device_id` ON `fraud_device_sessions`(`device_id`);
CREATE INDEX `idx_fraud_device_sessions_org_id` ON `fraud_device_sessions`(`org_id`);
CREATE TABLE `fraud_values` (`org_id` text,`list` text,`value` text,`created_at` datetime,PRIMARY KEY (`org_id`,`list`,`value`));
CREATE TABLE `fraud_alerts` (`id` text,`org_id` text NOT NULL,`decision_id` text NOT NULL,`customer_id` text NOT NULL,`outcome` text NOT NULL,`score` integer NOT NULL,`reason_codes` text,`status` text NOT NULL,`created_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX `idx_fraud_alerts_created_at` ON `fraud_alerts`(`created_at`);
CREATE UNIQUE INDEX `idx_fraud_alerts_decision_id` ON `fraud_alerts`(`decision_id`);
CREATE INDEX `idx_fraud_alerts_org_id` ON `fraud_alerts`(`org_id`);
CREATE TABLE `fraud_backtests` (`id` text,`org_id` text NOT NULL,`rule_set_id` text NOT NULL,`version` integer NOT NULL,`range_from` datetime,`range_to` datetime,`status` text NOT NULL,`total` integer NOT NULL,`done` integer NOT NULL,`report` text,`error` text,`created_by` text,`created_at` datetime,`completed_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX `idx_fraud_backtests_org_id` ON `fraud_backtests`(`org_id`);

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
