-- +goose Up
CREATE TABLE "service_keys" (
    "org_id" varchar(40),
    "caller_service_slug" varchar(100),
    "api_key_id" varchar(40) NOT NULL,
    "sealed_secret" varchar(500) NOT NULL,
    "created_at" timestamptz,
    "updated_at" timestamptz,
    PRIMARY KEY ("org_id", "caller_service_slug")
);

-- +goose Down
DROP TABLE "service_keys";
