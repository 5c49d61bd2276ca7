CREATE TABLE `dataset_chunks` (
	`dataset_id` text NOT NULL,
	`chunk` integer NOT NULL,
	`items` text NOT NULL,
	PRIMARY KEY(`dataset_id`, `chunk`),
	FOREIGN KEY (`dataset_id`) REFERENCES `datasets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `datasets` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`format` text NOT NULL,
	`n_items` integer NOT NULL,
	`tags` text NOT NULL,
	`sha256` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `datasets_tenant` ON `datasets` (`tenant_id`,`id`);