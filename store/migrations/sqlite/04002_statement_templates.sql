-- +goose Up
-- an organisation's bank statement templates (POST /api/statements/templates)
CREATE TABLE `statement_templates` (`id` text,`org_id` text NOT NULL,`bank` text NOT NULL,`template` text NOT NULL,`created_by` text,`created_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX `idx_statement_templates_org_id` ON `statement_templates`(`org_id`);

-- +goose Down
DROP TABLE `statement_templates`;
