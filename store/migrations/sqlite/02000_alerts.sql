-- +goose Up
-- alerts: the cases product's one intake (screening hits, fraud decisions needing a person).
CREATE TABLE `alerts` (`id` text,`org_id` text NOT NULL,`source` text NOT NULL,`source_ref` text NOT NULL,`subject` text,`dedupe_key` text NOT NULL,`customer_id` text,`score` real,`summary` text,`reason_codes` text,`details` text,`status` text NOT NULL,`case_id` text,`created_at` datetime,`updated_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX `ix_alerts_org_created` ON `alerts`(`org_id`,`created_at`);
CREATE UNIQUE INDEX `ux_alerts_org_dedupe` ON `alerts`(`org_id`,`dedupe_key`);
CREATE INDEX `idx_alerts_source_ref` ON `alerts`(`source_ref`);
CREATE INDEX `idx_alerts_customer_id` ON `alerts`(`customer_id`);
CREATE INDEX `idx_alerts_status` ON `alerts`(`status`);
CREATE INDEX `idx_alerts_case_id` ON `alerts`(`case_id`);

-- +goose Down
DROP TABLE `alerts`;
