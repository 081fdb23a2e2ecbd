import { startStandInSmsGateway, type StandInFcm, type StandInSmsGateway } from '@calsync/testkit';
import { RealServerProcess } from './server-process.js';

/** A real server process on in-memory PGlite with its own stand-in SMS gateway. */
export interface TestServer {
  readonly server: RealServerProcess;
  readonly gateway: StandInSmsGateway;
  /** Stops the process (if it still runs) and the gateway. */
  stop(): Promise<void>;
}

/**
 * The environment every test server starts from: test mode, quiet logs, secrets made from `name`,
 * the stand-in SMS gateway at `gatewayUrl`, no resend wait. Servers that must share tokens (two
 * nodes, a restored backup) use one `name`.
 */
export function testServerEnv(name: string, gatewayUrl: string): Record<string, string> {
  const secret = (kind: string): string => `${name}-${kind}-secret-`.padEnd(40, '0');
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    JWT_SECRET: secret('access'),
    JWT_REFRESH_SECRET: secret('refresh'),
    SYNC_CURSOR_SECRET: secret('cursor'),
    SMS_GATEWAY_URL: gatewayUrl,
    SMS_GATEWAY_API_KEY: secret('gateway'),
    SMS_GATEWAY_SENDER: 'Calsync',
    OTP_RESEND_SECONDS: '0',
  };
}

/** The variables that send FCM to the stand-in `fcm`. */
export function standInFcmEnv(fcm: StandInFcm): Record<string, string> {
  return { FCM_PROJECT_ID: fcm.projectId, FCM_CREDENTIALS: fcm.serviceAccountJson, FCM_ENDPOINT: fcm.endpoint, FCM_TOKEN_URL: fcm.tokenUrl };
}

/**
 * Starts the server for a test that needs nothing special: fresh in-memory database, test secrets
 * made from `name`, the stand-in gateway, no resend wait. `env` adds or overrides variables.
 */
export async function startTestServer(name: string, env: Readonly<Record<string, string>> = {}): Promise<TestServer> {
  const gateway = await startStandInSmsGateway();
  const server = new RealServerProcess({ DATABASE_URL: 'pglite://memory', ...testServerEnv(name, gateway.url), ...env });
  try {
    await server.start();
  } catch (e) {
    await gateway.close();
    throw e;
  }
  return {
    server,
    gateway,
    stop: async () => {
      if (server.running) await server.terminate();
      await gateway.close();
    },
  };
}
