-- +goose Up
CREATE TABLE "service_keys" (
    "org_id" text,
    "caller_service_slug" text,
    "api_key_id" text NOT NULL,
    "sealed_secret" text NOT NULL,
    "created_at" datetime,
    "updated_at" datetime,
    PRIMARY KEY ("org_id", "caller_service_slug")
);

-- +goose Down
DROP TABLE "service_keys";
