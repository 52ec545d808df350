-- +goose Up
-- cases: cases with their timeline and evidence, and SAR filings (the cases product).
CREATE TABLE `cases` (`id` text,`org_id` text NOT NULL,`title` text NOT NULL,`customer_id` text,`priority` text NOT NULL,`status` text NOT NULL,`assignee_id` text,`due_at` datetime,`proposed_by` text,`proposed_outcome` text,`proposed_rationale` text,`outcome` text,`rationale` text,`closed_by` text,`closed_at` datetime,`created_by` text,`summary` text,`summary_by` text,`started` numeric NOT NULL DEFAULT false,`created_at` datetime,`updated_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX `idx_cases_status` ON `cases`(`status`);
CREATE INDEX `idx_cases_customer_id` ON `cases`(`customer_id`);
CREATE INDEX `ix_cases_org_created` ON `cases`(`org_id`,`created_at`);
CREATE TABLE `case_entries` (`id` text,`org_id` text NOT NULL,`case_id` text NOT NULL,`kind` text NOT NULL,`actor_id` text,`api_key_id` text,`body` text,`data` text,`created_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX `ix_case_entries_case` ON `case_entries`(`case_id`,`created_at`);
CREATE TABLE `case_evidence` (`id` text,`org_id` text NOT NULL,`case_id` text NOT NULL,`kind` text NOT NULL,`ref_id` text NOT NULL,`note` text,`added_by` text,`created_at` datetime,PRIMARY KEY (`id`));
CREATE UNIQUE INDEX `ux_case_evidence_ref` ON `case_evidence`(`case_id`,`ref_id`);
CREATE TABLE `sar_filings` (`id` text,`org_id` text NOT NULL,`case_id` text NOT NULL,`subjects` text,`activity_from` text NOT NULL,`activity_to` text NOT NULL,`amount` real,`currency` text NOT NULL,`narrative` text NOT NULL,`status` text NOT NULL,`filed_by_id` text NOT NULL,`filed_by_key_id` text,`submitted_by_id` text,`submitted_by_key_id` text,`submitted_at` datetime,`reference` text,`reject_reason` text,`last_error` text,`attempts` integer NOT NULL DEFAULT 0,`answered_at` datetime,`document` text,`pdf` blob,`started` numeric NOT NULL DEFAULT false,`created_at` datetime,`updated_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX `idx_sar_filings_status` ON `sar_filings`(`status`);
CREATE INDEX `idx_sar_filings_case_id` ON `sar_filings`(`case_id`);
CREATE INDEX `ix_sar_filings_org_created` ON `sar_filings`(`org_id`,`created_at`);

-- +goose Down
DROP TABLE `sar_filings`;
DROP TABLE `case_evidence`;
DROP TABLE `case_entries`;
DROP TABLE `cases`;
