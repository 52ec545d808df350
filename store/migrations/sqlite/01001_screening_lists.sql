-- +goose Up
CREATE TABLE "screening_lists" (
    "id" text,
    "org_id" text NOT NULL,
    "name" text NOT NULL,
    "kind" text NOT NULL,
    "version" integer NOT NULL,
    "content_hash" text NOT NULL,
    "entity_count" integer NOT NULL,
    "created_at" datetime,
    "refreshed_at" datetime,
    PRIMARY KEY ("id")
);
CREATE INDEX "idx_screening_lists_org_id" ON "screening_lists" ("org_id");

CREATE TABLE "screening_list_versions" (
    "list_id" text,
    "version" integer,
    "org_id" text NOT NULL,
    "content_hash" text NOT NULL,
    "entities" text,
    "delta" text,
    "created_at" datetime,
    PRIMARY KEY ("list_id","version")
);
CREATE INDEX "idx_screening_list_versions_org_id" ON "screening_list_versions" ("org_id");

-- +goose Down
DROP TABLE "screening_list_versions";
DROP TABLE "screening_lists";
