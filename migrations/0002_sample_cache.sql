CREATE TABLE `sample_cache` (
	`tenant_id` text NOT NULL,
	`cache_key` text NOT NULL,
	`value` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `cache_key`)
);
