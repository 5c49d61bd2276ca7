CREATE TABLE `provider_connections` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`base_url` text NOT NULL,
	`api_key_enc` text,
	`api_key_last4` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `provider_connections_tenant_name` ON `provider_connections` (`tenant_id`,`name`);--> statement-breakpoint
CREATE INDEX `provider_connections_tenant` ON `provider_connections` (`tenant_id`,`id`);