ALTER TABLE `runs` ADD `result_key` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `result_bytes` integer;