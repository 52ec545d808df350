-- +goose Up
-- Where the velocity prune goes on from (store.Fraud.PruneVelocity): one row.
CREATE TABLE `fraud_velocity_prune` (`id` integer,`after_entity_id` integer NOT NULL,PRIMARY KEY (`id`));

-- +goose Down
DROP TABLE `fraud_velocity_prune`;
