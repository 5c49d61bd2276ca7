ALTER TABLE `runs` ADD `call_requests` integer;--> statement-breakpoint
ALTER TABLE `runs` ADD `call_retries` integer;--> statement-breakpoint
ALTER TABLE `runs` ADD `call_rate_limited` integer;--> statement-breakpoint
CREATE INDEX `runs_status_created` ON `runs` (`status`,`created_at`);--> statement-breakpoint
ALTER TABLE `samples` ADD `call_requests` integer;--> statement-breakpoint
ALTER TABLE `samples` ADD `call_retries` integer;--> statement-breakpoint
ALTER TABLE `samples` ADD `call_rate_limited` integer;