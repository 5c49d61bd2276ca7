CREATE INDEX `dashboard_sessions_tenant` ON `dashboard_sessions` (`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `dashboard_sessions_expires` ON `dashboard_sessions` (`expires_at`);