CREATE TABLE `dashboard_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`tenant_id` text NOT NULL,
	`key_id` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dashboard_sessions_token_hash` ON `dashboard_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `dashboard_sessions_key` ON `dashboard_sessions` (`key_id`);