-- +goose Up
-- Organisation capabilities (SPEC 7.3): the products an organisation may use. Existing
-- organisations had every product, so they keep "*".
ALTER TABLE "organizations" ADD COLUMN "capabilities" text NOT NULL DEFAULT "*";
