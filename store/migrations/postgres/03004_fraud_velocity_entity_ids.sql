-- +goose Up
-- Velocity rows are keyed by an entity's id, not by its organisation, dimension and entity: the
-- three strings were most of every key the fast path seeks, compares and binds. Every row is
-- carried over, under the id its entity gets here.
CREATE TABLE "fraud_velocity_entities" ("id" bigserial,"org_id" varchar(40) NOT NULL,"dimension" varchar(16) NOT NULL,"entity" varchar(256) NOT NULL,PRIMARY KEY ("id"));
CREATE UNIQUE INDEX IF NOT EXISTS "ux_fraud_velocity_entities" ON "fraud_velocity_entities" ("org_id","dimension","entity");
INSERT INTO "fraud_velocity_entities" ("org_id","dimension","entity")
	SELECT "org_id","dimension","entity" FROM "fraud_velocity_counters" UNION SELECT "org_id","dimension","entity" FROM "fraud_velocity_seen" ORDER BY 1, 2, 3;
CREATE TABLE "fraud_velocity_counters_new" ("entity_id" bigint NOT NULL,"bucket_size" bigint NOT NULL,"bucket_start" bigint NOT NULL,"currency" varchar(3) NOT NULL,"events" bigint NOT NULL,"amount_minor" bigint NOT NULL,PRIMARY KEY ("entity_id","bucket_size","bucket_start","currency"));
INSERT INTO "fraud_velocity_counters_new" SELECT e."id", c."bucket_size", c."bucket_start", c."currency", c."events", c."amount_minor"
	FROM "fraud_velocity_counters" c JOIN "fraud_velocity_entities" e USING ("org_id","dimension","entity");
DROP TABLE "fraud_velocity_counters";
ALTER TABLE "fraud_velocity_counters_new" RENAME TO "fraud_velocity_counters";
ALTER INDEX "fraud_velocity_counters_new_pkey" RENAME TO "fraud_velocity_counters_pkey";
CREATE TABLE "fraud_velocity_seen_new" ("entity_id" bigint NOT NULL,"attribute" varchar(16) NOT NULL,"value" varchar(256) NOT NULL,"last_seen" bigint NOT NULL,PRIMARY KEY ("entity_id","attribute","value"));
INSERT INTO "fraud_velocity_seen_new" SELECT e."id", s."attribute", s."value", s."last_seen"
	FROM "fraud_velocity_seen" s JOIN "fraud_velocity_entities" e USING ("org_id","dimension","entity");
DROP TABLE "fraud_velocity_seen";
ALTER TABLE "fraud_velocity_seen_new" RENAME TO "fraud_velocity_seen";
ALTER INDEX "fraud_velocity_seen_new_pkey" RENAME TO "fraud_velocity_seen_pkey";
CREATE INDEX IF NOT EXISTS "ix_fraud_velocity_seen_window" ON "fraud_velocity_seen" ("entity_id","attribute","last_seen");

-- +goose Down
CREATE TABLE "fraud_velocity_counters_old" ("org_id" varchar(40),"dimension" varchar(16),"entity" varchar(256),"bucket_size" bigint,"bucket_start" bigint,"currency" varchar(3),"events" bigint NOT NULL,"amount_minor" bigint NOT NULL,PRIMARY KEY ("org_id","dimension","entity","bucket_size","bucket_start","currency"));
INSERT INTO "fraud_velocity_counters_old" SELECT e."org_id", e."dimension", e."entity", c."bucket_size", c."bucket_start", c."currency", c."events", c."amount_minor"
	FROM "fraud_velocity_counters" c JOIN "fraud_velocity_entities" e ON e."id" = c."entity_id";
DROP TABLE "fraud_velocity_counters";
ALTER TABLE "fraud_velocity_counters_old" RENAME TO "fraud_velocity_counters";
ALTER INDEX "fraud_velocity_counters_old_pkey" RENAME TO "fraud_velocity_counters_pkey";
CREATE TABLE "fraud_velocity_seen_old" ("org_id" varchar(40),"dimension" varchar(16),"entity" varchar(256),"attribute" varchar(16),"value" varchar(256),"last_seen" bigint NOT NULL,PRIMARY KEY ("org_id","dimension","entity","attribute","value"));
INSERT INTO "fraud_velocity_seen_old" SELECT e."org_id", e."dimension", e."entity", s."attribute", s."value", s."last_seen"
	FROM "fraud_velocity_seen" s JOIN "fraud_velocity_entities" e ON e."id" = s."entity_id";
DROP TABLE "fraud_velocity_seen";
ALTER TABLE "fraud_velocity_seen_old" RENAME TO "fraud_velocity_seen";
ALTER INDEX "fraud_velocity_seen_old_pkey" RENAME TO "fraud_velocity_seen_pkey";
CREATE INDEX IF NOT EXISTS "ix_fraud_velocity_seen_window" ON "fraud_velocity_seen" ("org_id","dimension","entity","attribute","last_seen");
DROP TABLE "fraud_velocity_entities";
