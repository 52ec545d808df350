-- +goose Up
CREATE TABLE "screening_lists" (
    "id" varchar(40),
    "org_id" varchar(40) NOT NULL,
    "name" varchar(200) NOT NULL,
    "kind" varchar(32) NOT NULL,
    "version" bigint NOT NULL,
    "content_hash" varchar(64) NOT NULL,
    "entity_count" bigint NOT NULL,
    "created_at" timestamptz,
    "refreshed_at" timestamptz,
    PRIMARY KEY ("id")
);
CREATE INDEX "idx_screening_lists_org_id" ON "screening_lists" ("org_id");

CREATE TABLE "screening_list_versions" (
    "list_id" varchar(40),
    "version" bigint,
    "org_id" varchar(40) NOT NULL,
    "content_hash" varchar(64) NOT NULL,
    "entities" text,
    "delta" text,
    "created_at" timestamptz,
    PRIMARY KEY ("list_id","version")
);
CREATE INDEX "idx_screening_list_versions_org_id" ON "screening_list_versions" ("org_id");

-- +goose Down
DROP TABLE "screening_list_versions";
DROP TABLE "screening_lists";
