-- +goose Up
-- every decided version of a bank statement analysis (the pipeline's, then each correction's)
CREATE TABLE `analysis_versions` (`analysis_id` text,`version` integer,`org_id` text NOT NULL,`status` text NOT NULL,`result` text NOT NULL,`corrections` text,`actor_user_id` text,`created_at` datetime,PRIMARY KEY (`analysis_id`,`version`));
CREATE INDEX `idx_analysis_versions_org_id` ON `analysis_versions`(`org_id`);

-- +goose Down
DROP TABLE `analysis_versions`;
