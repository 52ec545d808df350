-- +goose Up
-- Velocity rows are keyed by an entity's id, not by its organisation, dimension and entity: the
-- three strings were most of every key the fast path seeks, compares and binds. Every row is
-- carried over, under the id its entity gets here.
CREATE TABLE `fraud_velocity_entities` (`id` integer PRIMARY KEY AUTOINCREMENT,`org_id` text NOT NULL,`dimension` text NOT NULL,`entity` text NOT NULL);
CREATE UNIQUE INDEX `ux_fraud_velocity_entities` ON `fraud_velocity_entities`(`org_id`,`dimension`,`entity`);
INSERT INTO `fraud_velocity_entities` (`org_id`,`dimension`,`entity`)
	SELECT `org_id`,`dimension`,`entity` FROM `fraud_velocity_counters` UNION SELECT `org_id`,`dimension`,`entity` FROM `fraud_velocity_seen` ORDER BY 1, 2, 3;
CREATE TABLE `fraud_velocity_counters_new` (`entity_id` integer NOT NULL,`bucket_size` integer NOT NULL,`bucket_start` integer NOT NULL,`currency` text NOT NULL,`events` integer NOT NULL,`amount_minor` integer NOT NULL,PRIMARY KEY (`entity_id`,`bucket_size`,`bucket_start`,`currency`)) WITHOUT ROWID;
INSERT INTO `fraud_velocity_counters_new` SELECT e.`id`, c.`bucket_size`, c.`bucket_start`, c.`currency`, c.`events`, c.`amount_minor`
	FROM `fraud_velocity_counters` c JOIN `fraud_velocity_entities` e ON e.`org_id` = c.`org_id` AND e.`dimension` = c.`dimension` AND e.`entity` = c.`entity`;
DROP TABLE `fraud_velocity_counters`;
ALTER TABLE `fraud_velocity_counters_new` RENAME TO `fraud_velocity_counters`;
CREATE TABLE `fraud_velocity_seen_new` (`entity_id` integer NOT NULL,`attribute` text NOT NULL,`value` text NOT NULL,`last_seen` integer NOT NULL,PRIMARY KEY (`entity_id`,`attribute`,`value`)) WITHOUT ROWID;
INSERT INTO `fraud_velocity_seen_new` SELECT e.`id`, s.`attribute`, s.`value`, s.`last_seen`
	FROM `fraud_velocity_seen` s JOIN `fraud_velocity_entities` e ON e.`org_id` = s.`org_id` AND e.`dimension` = s.`dimension` AND e.`entity` = s.`entity`;
DROP TABLE `fraud_velocity_seen`;
ALTER TABLE `fraud_velocity_seen_new` RENAME TO `fraud_velocity_seen`;
CREATE INDEX `ix_fraud_velocity_seen_window` ON `fraud_velocity_seen`(`entity_id`,`attribute`,`last_seen`);

-- +goose Down
CREATE TABLE `fraud_velocity_counters_old` (`org_id` text,`dimension` text,`entity` text,`bucket_size` integer,`bucket_start` integer,`currency` text,`events` integer NOT NULL,`amount_minor` integer NOT NULL,PRIMARY KEY (`org_id`,`dimension`,`entity`,`bucket_size`,`bucket_start`,`currency`)) WITHOUT ROWID;
INSERT INTO `fraud_velocity_counters_old` SELECT e.`org_id`, e.`dimension`, e.`entity`, c.`bucket_size`, c.`bucket_start`, c.`currency`, c.`events`, c.`amount_minor`
	FROM `fraud_velocity_counters` c JOIN `fraud_velocity_entities` e ON e.`id` = c.`entity_id`;
DROP TABLE `fraud_velocity_counters`;
ALTER TABLE `fraud_velocity_counters_old` RENAME TO `fraud_velocity_counters`;
CREATE TABLE `fraud_velocity_seen_old` (`org_id` text,`dimension` text,`entity` text,`attribute` text,`value` text,`last_seen` integer NOT NULL,PRIMARY KEY (`org_id`,`dimension`,`entity`,`attribute`,`value`)) WITHOUT ROWID;
INSERT INTO `fraud_velocity_seen_old` SELECT e.`org_id`, e.`dimension`, e.`entity`, s.`attribute`, s.`value`, s.`last_seen`
	FROM `fraud_velocity_seen` s JOIN `fraud_velocity_entities` e ON e.`id` = s.`entity_id`;
DROP TABLE `fraud_velocity_seen`;
ALTER TABLE `fraud_velocity_seen_old` RENAME TO `fraud_velocity_seen`;
CREATE INDEX `ix_fraud_velocity_seen_window` ON `fraud_velocity_seen`(`org_id`,`dimension`,`entity`,`attribute`,`last_seen`);
DROP TABLE `fraud_velocity_entities`;
