-- +goose Up
-- The velocity tables are read and written by their primary key alone. As WITHOUT ROWID tables
-- that key is the table itself, so each upsert on the fast path writes one b-tree instead of
-- the table and its key's index.
CREATE TABLE `fraud_velocity_counters_new` (`org_id` text,`dimension` text,`entity` text,`bucket_size` integer,`bucket_start` integer,`currency` text,`events` integer NOT NULL,`amount_minor` integer NOT NULL,PRIMARY KEY (`org_id`,`dimension`,`entity`,`bucket_size`,`bucket_start`,`currency`)) WITHOUT ROWID;
INSERT INTO `fraud_velocity_counters_new` SELECT `org_id`,`dimension`,`entity`,`bucket_size`,`bucket_start`,`currency`,`events`,`amount_minor` FROM `fraud_velocity_counters`;
DROP TABLE `fraud_velocity_counters`;
ALTER TABLE `fraud_velocity_counters_new` RENAME TO `fraud_velocity_counters`;
CREATE TABLE `fraud_velocity_seen_new` (`org_id` text,`dimension` text,`entity` text,`attribute` text,`value` text,`last_seen` integer NOT NULL,PRIMARY KEY (`org_id`,`dimension`,`entity`,`attribute`,`value`)) WITHOUT ROWID;
INSERT INTO `fraud_velocity_seen_new` SELECT `org_id`,`dimension`,`entity`,`attribute`,`value`,`last_seen` FROM `fraud_velocity_seen`;
DROP TABLE `fraud_velocity_seen`;
ALTER TABLE `fraud_velocity_seen_new` RENAME TO `fraud_velocity_seen`;
CREATE INDEX `ix_fraud_velocity_seen_window` ON `fraud_velocity_seen`(`org_id`,`dimension`,`entity`,`attribute`,`last_seen`);
CREATE TABLE `fraud_subjects_new` (`org_id` text,`kind` text,`subject_id` text,`first_seen_ms` integer NOT NULL,`last_seen_ms` integer NOT NULL,PRIMARY KEY (`org_id`,`kind`,`subject_id`)) WITHOUT ROWID;
INSERT INTO `fraud_subjects_new` SELECT `org_id`,`kind`,`subject_id`,`first_seen_ms`,`last_seen_ms` FROM `fraud_subjects`;
DROP TABLE `fraud_subjects`;
ALTER TABLE `fraud_subjects_new` RENAME TO `fraud_subjects`;

-- +goose Down
CREATE TABLE `fraud_velocity_counters_old` (`org_id` text,`dimension` text,`entity` text,`bucket_size` integer,`bucket_start` integer,`currency` text,`events` integer NOT NULL,`amount_minor` integer NOT NULL,PRIMARY KEY (`org_id`,`dimension`,`entity`,`bucket_size`,`bucket_start`,`currency`));
INSERT INTO `fraud_velocity_counters_old` SELECT * FROM `fraud_velocity_counters`;
DROP TABLE `fraud_velocity_counters`;
ALTER TABLE `fraud_velocity_counters_old` RENAME TO `fraud_velocity_counters`;
CREATE TABLE `fraud_velocity_seen_old` (`org_id` text,`dimension` text,`entity` text,`attribute` text,`value` text,`last_seen` integer NOT NULL,PRIMARY KEY (`org_id`,`dimension`,`entity`,`attribute`,`value`));
INSERT INTO `fraud_velocity_seen_old` SELECT * FROM `fraud_velocity_seen`;
DROP TABLE `fraud_velocity_seen`;
ALTER TABLE `fraud_velocity_seen_old` RENAME TO `fraud_velocity_seen`;
CREATE INDEX `ix_fraud_velocity_seen_window` ON `fraud_velocity_seen`(`org_id`,`dimension`,`entity`,`attribute`,`last_seen`);
CREATE TABLE `fraud_subjects_old` (`org_id` text,`kind` text,`subject_id` text,`first_seen_ms` integer NOT NULL,`last_seen_ms` integer NOT NULL,PRIMARY KEY (`org_id`,`kind`,`subject_id`));
INSERT INTO `fraud_subjects_old` SELECT * FROM `fraud_subjects`;
DROP TABLE `fraud_subjects`;
ALTER TABLE `fraud_subjects_old` RENAME TO `fraud_subjects`;
