// The dev tenant and its documented key, as SQL for the local D1 (used by dev-setup.ts, and by a test
// that runs it against a real D1). Plain TypeScript, so it runs in Node and in workerd.
import { newId } from "../src/ids.ts";

/** A fixed, documented key for local use only; it exists only in the local D1 dev-setup seeds. */
export const DEV_API_KEY = "assay_sk_local_dev_key";
/** SHA-256 of DEV_API_KEY, hex: keys are stored hashed (`echo -n assay_sk_local_dev_key | sha256sum`). */
const DEV_KEY_HASH = "a4f69987a87de32e518a07e839897d4027bb7cb18b12595ff427f339b4a8e0bd";

/**
 * Inserts the tenant `dev` and its key unless they exist (safe on every start). Their ids are shaped
 * like every other id (creation time first), so lists show them in creation order.
 */
export function devSeedSql(now: number): string {
  return (
    `INSERT INTO tenants (id, name, created_at) SELECT '${newId("ten", now)}', 'dev', ${now} WHERE NOT EXISTS (SELECT 1 FROM tenants WHERE name = 'dev');` +
    `INSERT INTO api_keys (id, tenant_id, name, prefix, key_hash, created_at) ` +
    `SELECT '${newId("key", now)}', (SELECT id FROM tenants WHERE name = 'dev' ORDER BY id LIMIT 1), 'local dev key', '${DEV_API_KEY.slice(0, 16)}', '${DEV_KEY_HASH}', ${now} ` +
    `WHERE NOT EXISTS (SELECT 1 FROM api_keys WHERE key_hash = '${DEV_KEY_HASH}');`
  );
}
