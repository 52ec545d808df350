-- +goose Up
-- an organisation's transaction category rules (PUT /api/statements/category-rules)
CREATE TABLE `statement_category_rules` (`org_id` text,`rules` text NOT NULL,`updated_by` text,`updated_at` datetime,PRIMARY KEY (`org_id`));

-- +goose Down
DROP TABLE `statement_category_rules`;
