CREATE TABLE `idempotency_keys` (
	`tenant_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`run_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`evaluator` text NOT NULL,
	`status` text NOT NULL,
	`config` text NOT NULL,
	`done` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`total` integer NOT NULL,
	`result` text,
	`error` text,
	`webhook_url` text,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `runs_tenant` ON `runs` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `runs_tenant_status` ON `runs` (`tenant_id`,`status`,`id`);--> statement-breakpoint
CREATE TABLE `samples` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` text NOT NULL,
	`unit_id` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`output` text,
	`error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `samples_run_unit` ON `samples` (`run_id`,`unit_id`);--> statement-breakpoint
CREATE INDEX `samples_run_seq` ON `samples` (`run_id`,`seq`);--> statement-breakpoint
CREATE TABLE `suites` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`evaluator` text NOT NULL,
	`name` text NOT NULL,
	`sha256` text NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `suites_tenant` ON `suites` (`tenant_id`,`evaluator`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`message_id` text NOT NULL,
	`run_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`event` text NOT NULL,
	`url` text NOT NULL,
	`attempt` integer NOT NULL,
	`status` text NOT NULL,
	`response_status` integer,
	`error` text,
	`duration_ms` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_run` ON `webhook_deliveries` (`run_id`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_secrets` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`secret_enc` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
