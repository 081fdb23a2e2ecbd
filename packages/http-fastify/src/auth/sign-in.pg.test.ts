import { Writable } from 'node:stream';
import { withAuthTables } from '@calsync/adapters-postgres';
import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '@calsync/adapters-postgres/test-support';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInSmsGateway, type StandInSmsGateway } from '@calsync/testkit';
import { build } from '../../test-support/index.js';

const ENV = {
  JWT_SECRET: 'jwt-access-secret-value-'.padEnd(48, 'A'),
  JWT_REFRESH_SECRET: 'jwt-refresh-secret-value-'.padEnd(48, 'R'),
  SYNC_CURSOR_SECRET: 'cursor-secret-value-'.padEnd(48, 'C'),
  SMS_GATEWAY_API_KEY: 'gateway-api-key-value-123',
  SMS_GATEWAY_SENDER: 'CalSync',
  LOG_LEVEL: 'info',
};
const PHONE = '+15550007777';
const PASSWORD = 'my very long password 42';

for (const kind of announceDatabaseKinds('sign-in over HTTP')) {
  describe(`sign-in on ${kind}`, () => {
    let database: TestDatabase;
    let gateway: StandInSmsGateway;
    let app: FastifyInstance;
    const logLines: string[] = [];

    beforeAll(async () => {
      database = await openTestDatabase(kind);
      gateway = await startStandInSmsGateway();
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          logLines.push(chunk.toString('utf8'));
          done();
        },
      });
      const logger = pino({ level: 'info' }, sink);
      ({ app } = await build({ database, env: { ...ENV, SMS_GATEWAY_URL: gateway.url }, standIns: ['engine'], logger, smsGateway: true }));
    });
    afterAll(async () => {
      await app?.close();
      await gateway?.close();
      await database?.close();
    });

    const post = (url: string, payload: unknown, token?: string) =>
      app.inject({ method: 'POST', url, payload: payload as object, ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}) });

    it('signs a new phone in: user and default calendar "Personal" with a sequence version; e-mail login; concurrent refresh; nothing secret in logs', async () => {
      expect((await post('/api/auth/send-otp', { phone: PHONE, name: 'Zoe' })).statusCode).toBe(200);
      const code = gateway.lastCode(PHONE);
      const verified = await post('/api/auth/verify-otp', { phone: PHONE, otp: code, device: { uid: 'tablet', fcmToken: 'fcm-token-value' } });
      expect(verified.statusCode).toBe(200);
      const s = verified.json().data;
      expect(s).toMatchObject({ isNewUser: true, user: { name: 'Zoe', phone: PHONE }, device: { uid: 'tablet', hasPushToken: true } });

      const rows = await database.db.selectFrom('calendars').select(['name', 'is_default', 'version']).where('user_id', '=', s.user.id).execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ name: 'Personal', is_default: true });
      expect(BigInt(rows[0]!.version) > 0n).toBe(true);
      const otpRows = await withAuthTables(database.db).selectFrom('auth_otp_codes').selectAll().execute();
      expect(otpRows.length).toBeGreaterThan(0);
      expect(JSON.stringify(otpRows)).not.toContain(code);

      const patched = await app.inject({
        method: 'PATCH',
        url: '/api/users/me',
        headers: { authorization: `Bearer ${s.accessToken}` },
        payload: { email: 'zoe@example.com', password: PASSWORD },
      });
      expect(patched.statusCode).toBe(200);
      const login = await post('/api/auth/login', { email: 'Zoe@Example.com', password: PASSWORD, device: { uid: 'laptop' } });
      expect(login.statusCode).toBe(200);
      const wrong = await post('/api/auth/login', { email: 'zoe@example.com', password: `${PASSWORD}!` });
      expect(wrong.json().error.code).toBe('INVALID_CREDENTIALS');

      const { refreshToken } = login.json().data;
      const results = await Promise.all([0, 1, 2, 3, 4].map(() => post('/api/auth/refresh', { refreshToken, deviceUid: 'laptop' })));
      const winners = results.filter((r) => r.statusCode === 200);
      expect(winners.length).toBeLessThanOrEqual(1);
      for (const r of results.filter((x) => x.statusCode !== 200)) expect(r.json().error.code).toBe('REFRESH_INVALID');
      let usableChildren = 0;
      for (const w of winners) {
        if ((await post('/api/auth/refresh', { refreshToken: w.json().data.refreshToken, deviceUid: 'laptop' })).statusCode === 200) usableChildren++;
      }
      expect(usableChildren).toBeLessThanOrEqual(1);
      // The tablet's family is independent of the laptop's replay.
      const tablet = await post('/api/auth/refresh', { refreshToken: s.refreshToken, deviceUid: 'tablet' });
      expect(tablet.statusCode).toBe(200);

      const stored = await withAuthTables(database.db).selectFrom('auth_refresh_tokens').selectAll().execute();
      expect(stored.length).toBeGreaterThan(2);
      expect(JSON.stringify(stored)).not.toContain(refreshToken);

      const log = logLines.join('');
      expect(log).toContain('/api/auth/verify-otp');
      const secrets = [code, PASSWORD, s.accessToken, s.refreshToken, refreshToken, 'fcm-token-value', ...Object.values(ENV).filter((v) => v.length > 12)];
      for (const secret of secrets) expect(log.includes(secret), `log leaks ${secret.slice(0, 12)}…`).toBe(false);
      for (const r of [...results, wrong, login, patched, verified]) {
        if (r.statusCode !== 200) for (const secret of secrets) expect(r.body.includes(secret)).toBe(false);
      }
    });
  });
}
