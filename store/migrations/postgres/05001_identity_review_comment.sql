-- +goose Up
-- A reviewer's comment on the decision of a verification in review (identity product).
ALTER TABLE "identity_verifications" ADD COLUMN "review_comment" varchar(2000);

-- +goose Down
ALTER TABLE "identity_verifications" DROP COLUMN "review_comment";
