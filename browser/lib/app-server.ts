import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../../e2e/lib/test-server.js';

const WEB_INDEX = fileURLToPath(new URL('../../packages/web/dist/index.html', import.meta.url));

/** The e2e tests' server (real process, in-memory PGlite, stand-in SMS gateway), serving the built web client at /app/. */
export interface AppServer extends TestServer {
  /** `http://127.0.0.1:<port>/app/` */
  readonly appUrl: string;
}

/**
 * Starts the same server the e2e tests use (`startTestServer`), with room for the many sign-ins of
 * a browser run. The web client must be built first (`pnpm test:browser` does it).
 */
export async function startAppServer(): Promise<AppServer> {
  if (!existsSync(WEB_INDEX)) throw new Error('packages/web/dist is missing: run `pnpm build:web` (or `pnpm test:browser`, which builds it)');
  const test = await startTestServer('browser', { OTP_MAX_SENDS_PER_HOUR: '100' });
  return { ...test, appUrl: `${test.server.baseUrl}/app/` };
}
