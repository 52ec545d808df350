-- +goose Up
-- identity verifications and their attempts (the identity product, SPEC 4.2 GET /api/identity/attempts)
CREATE TABLE IF NOT EXISTS `identity_verifications` (`id` text,`org_id` text NOT NULL,`customer_id` text,`reference` text,`external_id` text,`status` text NOT NULL,`claimed` text NOT NULL,`policy` text NOT NULL,`attempts` integer NOT NULL,`reasons` text,`reviewed_by` text,`reviewed_at` datetime,`expires_at` datetime NOT NULL,`created_at` datetime,`updated_at` datetime,`completed_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX IF NOT EXISTS `idx_identity_verifications_status` ON `identity_verifications`(`status`);
CREATE INDEX IF NOT EXISTS `idx_identity_verifications_external_id` ON `identity_verifications`(`external_id`);
CREATE INDEX IF NOT EXISTS `idx_identity_verifications_customer_id` ON `identity_verifications`(`customer_id`);
CREATE INDEX IF NOT EXISTS `ix_identity_verifications_org_created` ON `identity_verifications`(`org_id`,`created_at`);
CREATE TABLE IF NOT EXISTS `identity_attempts` (`id` text,`org_id` text NOT NULL,`verification_id` text NOT NULL,`customer_id` text,`number` integer NOT NULL,`status` text NOT NULL,`front_key` text,`back_key` text,`document` text,`checks` text,`outcome` text,`reasons` text,`created_at` datetime,`completed_at` datetime,`purged_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX IF NOT EXISTS `idx_identity_attempts_completed_at` ON `identity_attempts`(`completed_at`);
CREATE INDEX IF NOT EXISTS `idx_identity_attempts_status` ON `identity_attempts`(`status`);
CREATE INDEX IF NOT EXISTS `idx_identity_attempts_customer_id` ON `identity_attempts`(`customer_id`);
CREATE INDEX IF NOT EXISTS `idx_identity_attempts_verification_id` ON `identity_attempts`(`verification_id`);
CREATE INDEX IF NOT EXISTS `ix_identity_attempts_org_created` ON `identity_attempts`(`org_id`,`created_at`);

-- +goose Down
DROP TABLE IF EXISTS `identity_attempts`;
DROP TABLE IF EXISTS `identity_verifications`;
