-- +goose Up
-- An organisation's own daily token allowance, arranged with the operator (svc limits).
CREATE TABLE "ai_daily_token_limits" ("org_id" varchar(40),"tokens" bigint NOT NULL,"updated_at" timestamptz,PRIMARY KEY ("org_id"));

-- +goose Down
DROP TABLE "ai_daily_token_limits";
