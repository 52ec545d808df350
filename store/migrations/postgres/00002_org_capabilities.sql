-- +goose Up
-- Organisation capabilities (SPEC 7.3): the products an organisation may use. Existing
-- organisations had every product, so they keep "*".
ALTER TABLE "organizations" ADD COLUMN IF NOT EXISTS "capabilities" varchar(500) NOT NULL DEFAULT '*';
