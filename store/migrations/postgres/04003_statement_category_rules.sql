-- +goose Up
-- an organisation's transaction category rules (PUT /api/statements/category-rules)
CREATE TABLE "statement_category_rules" ("org_id" varchar(40),"rules" text NOT NULL,"updated_by" varchar(40),"updated_at" timestamptz,PRIMARY KEY ("org_id"));

-- +goose Down
DROP TABLE "statement_category_rules";
