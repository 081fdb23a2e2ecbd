import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A PostgreSQL database made for one test run, and the way to drop it. */
export interface ScratchDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * Creates `calsync_e2e_<random>` on the server of `serverUrl`, so the e2e run never shares tables
 * with the other engineers' tests running at the same time; `drop` removes it (forcing out any
 * connection a killed server left behind).
 */
export async function createScratchDatabase(serverUrl: string): Promise<ScratchDatabase> {
  const name = `calsync_e2e_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
