CREATE TABLE `prompts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`version` text NOT NULL,
	`kind` text NOT NULL,
	`sha256` text NOT NULL,
	`description` text,
	`content` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `prompts_tenant_name_version` ON `prompts` (`tenant_id`,`name`,`version`);--> statement-breakpoint
CREATE INDEX `prompts_tenant` ON `prompts` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `prompts_tenant_kind` ON `prompts` (`tenant_id`,`kind`,`id`);--> statement-breakpoint
CREATE INDEX `prompts_tenant_name` ON `prompts` (`tenant_id`,`name`,`id`);