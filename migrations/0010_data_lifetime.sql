ALTER TABLE `runs` ADD `sample_bytes` integer;--> statement-breakpoint
ALTER TABLE `runs` ADD `config_bytes` integer;--> statement-breakpoint
ALTER TABLE `runs` ADD `deleted_at` integer;--> statement-breakpoint
CREATE INDEX `runs_tenant_finished` ON `runs` (`tenant_id`,`finished_at`);--> statement-breakpoint
CREATE INDEX `runs_deleted` ON `runs` (`deleted_at`);--> statement-breakpoint
ALTER TABLE `tenants` ADD `retention_days` integer DEFAULT 30;--> statement-breakpoint
CREATE INDEX `idempotency_keys_run` ON `idempotency_keys` (`run_id`);--> statement-breakpoint
-- Tenants that exist before retention came keep their runs for ever until they choose a retention
-- (GET/PUT /v1/settings): an upgrade must not delete data nobody asked to delete. New tenants get the default.
UPDATE `tenants` SET `retention_days` = NULL;
