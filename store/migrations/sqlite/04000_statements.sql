-- +goose Up
-- bank statement analyses (the statements product, POST /api/analyses/upload)
CREATE TABLE IF NOT EXISTS `analyses` (`id` text,`org_id` text NOT NULL,`status` text NOT NULL,`version` integer NOT NULL,`failed_stage` text,`error_message` text,`external_ref` text,`external_id` text,`uploaded_by` text,`files` text NOT NULL,`password_sealed` text,`risk_score` integer NOT NULL,`result` text,`created_at` datetime,`updated_at` datetime,`completed_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX IF NOT EXISTS `idx_analyses_status` ON `analyses`(`status`);
CREATE INDEX IF NOT EXISTS `idx_analyses_external_id` ON `analyses`(`external_id`);
CREATE INDEX IF NOT EXISTS `ix_analyses_org_created` ON `analyses`(`org_id`,`created_at`);

-- +goose Down
DROP TABLE IF EXISTS `analyses`;
