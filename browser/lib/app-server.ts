import { startStandInSmsGateway, type StandInSmsGateway } from '@calsync/testkit';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RealServerProcess } from '../../e2e/lib/server-process.js';

const WEB_INDEX = fileURLToPath(new URL('../../packages/web/dist/index.html', import.meta.url));

/** The real server process (serving the built web client at /app/) and the SMS gateway stand-in it sends codes to. */
export interface AppServer {
  readonly server: RealServerProcess;
  readonly gateway: StandInSmsGateway;
  /** `http://127.0.0.1:<port>/app/` */
  readonly appUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts the stand-in SMS gateway and the real server on embedded PGlite. The web client must be
 * built first (`pnpm test:browser` does it).
 */
export async function startAppServer(): Promise<AppServer> {
  if (!existsSync(WEB_INDEX)) throw new Error('packages/web/dist is missing: run `pnpm build:web` (or `pnpm test:browser`, which builds it)');
  const gateway = await startStandInSmsGateway();
  const server = new RealServerProcess({
    DATABASE_URL: 'pglite://memory',
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    JWT_SECRET: 'browser-access-secret-0123456789abcdefgh',
    JWT_REFRESH_SECRET: 'browser-refresh-secret-0123456789abcdef',
    SYNC_CURSOR_SECRET: 'browser-cursor-secret-0123456789abcdefg',
    SMS_GATEWAY_URL: gateway.url,
    SMS_GATEWAY_API_KEY: 'browser-gateway-key-0123456789abcdef',
    SMS_GATEWAY_SENDER: 'CalsyncWeb',
    OTP_RESEND_SECONDS: '0',
    OTP_MAX_SENDS_PER_HOUR: '100',
  });
  try {
    await server.start();
  } catch (err) {
    await gateway.close();
    throw err;
  }
  return {
    server,
    gateway,
    appUrl: `${server.baseUrl}/app/`,
    async stop() {
      if (server.running) await server.terminate();
      await gateway.close();
    },
  };
}
