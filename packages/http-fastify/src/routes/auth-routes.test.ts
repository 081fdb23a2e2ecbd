import type { FastifyInstance } from 'fastify';
import type { CapturingSmsSender } from '@calsync/testkit';
import { build } from '../../test-support/index.js';

/** Test secrets (also what log and body scans look for). */
const SECRETS = { JWT_SECRET: 'access-secret-'.padEnd(48, 'a'), JWT_REFRESH_SECRET: 'refresh-secret-'.padEnd(48, 'r') };

/** The test app with the real sign-in (in-memory stores, the real JWT signer); the other routes' engine is the recording stand-in. */
async function signInTestApp(env: Record<string, string> = {}) {
  const { app, sms } = await build({ env: { ...SECRETS, ...env }, standIns: ['engine'], seed: 13 });
  return { app, sms };
}

/** send-otp then verify-otp through HTTP; returns the verify answer's data. */
async function httpSignIn(app: FastifyInstance, sms: CapturingSmsSender, phone: string, device?: Record<string, unknown>) {
  const sent = await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone, name: 'Ann' } });
  if (sent.statusCode !== 200) throw new Error(`send-otp ${sent.statusCode} ${sent.body}`);
  const res = await app.inject({ method: 'POST', url: '/api/auth/verify-otp', payload: { phone, otp: sms.lastCode(phone), ...(device ? { device } : {}) } });
  if (res.statusCode !== 200) throw new Error(`verify-otp ${res.statusCode} ${res.body}`);
  return res.json().data as { accessToken: string; refreshToken: string; isNewUser: boolean; user: { id: number }; device?: Record<string, unknown> };
}

import { createSigner } from 'fast-jwt';
import { afterEach, describe, expect, it } from 'vitest';

let current: FastifyInstance | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});
async function setup(env: Record<string, string> = {}) {
  const t = await signInTestApp(env);
  current = t.app;
  return t;
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const PHONE = '+15550001111';

describe('auth routes over HTTP (buildApp)', () => {
  it('send-otp answers the limits; verify-otp signs a new phone in with a device', async () => {
    const { app, sms } = await setup();
    const sent = await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone: PHONE } });
    expect(sent.json()).toEqual({ success: true, data: { expiresInSeconds: 300, resendAfterSeconds: 60 } });
    const res = await app.inject({
      method: 'POST',
      url: '/api/auth/verify-otp',
      payload: { phone: PHONE, otp: sms.lastCode(PHONE), device: { uid: 'web-1', platform: 'web', name: 'Firefox', fcmToken: 'fcm-secret' } },
    });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ isNewUser: true, user: { phone: PHONE, name: '', email: null, role: 'USER', isPhoneVerified: true } });
    expect(data.device).toEqual({ uid: 'web-1', platform: 'web', name: 'Firefox', hasPushToken: true, createdAt: expect.any(String), lastSeenAt: expect.any(String), current: true });
    expect(res.body).not.toContain('fcm-secret');
    const me = await app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(data.accessToken) });
    expect(me.json()).toEqual({ success: true, data: { user: data.user } });
    // Protected GETs are private and revalidated (docs/api.md): an ETag, and 304 when it matches.
    expect(me.headers['cache-control']).toBe('private, no-cache');
    const again = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { ...bearer(data.accessToken), 'if-none-match': String(me.headers.etag) } });
    expect(again.statusCode).toBe(304);
    const devices = await app.inject({ method: 'GET', url: '/api/auth/devices', headers: bearer(data.accessToken) });
    expect([devices.headers['cache-control'], typeof devices.headers.etag]).toEqual(['private, no-cache', 'string']);
  });

  it('one rule for unknown body fields: 400 VALIDATION_ERROR naming the field, on every body route', async () => {
    const { app, sms } = await setup();
    const send = await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone: PHONE, nickname: 'x' } });
    expect([send.statusCode, send.json().error.code, send.json().error.details]).toEqual([400, 'VALIDATION_ERROR', [{ path: 'body/nickname', message: expect.any(String) }]]);
    await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone: PHONE } });
    const verify = await app.inject({ method: 'POST', url: '/api/auth/verify-otp', payload: { phone: PHONE, otp: sms.lastCode(PHONE), device: { uid: 'd1', colour: 'red' } } });
    expect([verify.statusCode, verify.json().error.details]).toEqual([400, [{ path: 'body/device/colour', message: expect.any(String) }]]);
    for (const [url, payload] of [
      ['/api/auth/login', { email: 'a@b.cd', password: 'whatever1', remember: true }],
      ['/api/auth/refresh', { refreshToken: 'x', extra: 1 }],
    ] as const) {
      const res = await app.inject({ method: 'POST', url, payload });
      expect([url, res.statusCode, res.json().error.code]).toEqual([url, 400, 'VALIDATION_ERROR']);
    }
  });

  it('a device that gave no platform or name lists null for them, not an empty string', async () => {
    const { app, sms } = await setup();
    await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone: PHONE } });
    const res = await app.inject({ method: 'POST', url: '/api/auth/verify-otp', payload: { phone: PHONE, otp: sms.lastCode(PHONE), device: { uid: 'bare-device' } } });
    expect(res.json().data.device).toMatchObject({ uid: 'bare-device', platform: null, name: null });
    const list = await app.inject({ method: 'GET', url: '/api/auth/devices', headers: bearer(res.json().data.accessToken) });
    expect(list.json().data.devices).toEqual([expect.objectContaining({ uid: 'bare-device', platform: null, name: null, current: true })]);
  });

  it('validates phone, otp and e-mail shapes with 400 VALIDATION_ERROR', async () => {
    const { app } = await setup();
    for (const [url, payload] of [
      ['/api/auth/send-otp', { phone: '0170 123' }],
      ['/api/auth/verify-otp', { phone: PHONE, otp: '12345' }],
      ['/api/auth/login', { email: 'no-at-sign', password: 'whatever1' }],
    ] as const) {
      const res = await app.inject({ method: 'POST', url, payload });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('OTP errors map to 400/429 with Retry-After', async () => {
    const { app, sms } = await setup();
    await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone: PHONE } });
    const again = await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone: PHONE } });
    expect(again.statusCode).toBe(429);
    expect(again.json().error.code).toBe('OTP_RESEND_TOO_SOON');
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    const wrong = String((Number(sms.lastCode(PHONE)) + 1) % 1e6).padStart(6, '0');
    for (let i = 0; i < 5; i++) {
      const r = await app.inject({ method: 'POST', url: '/api/auth/verify-otp', payload: { phone: PHONE, otp: wrong } });
      expect([r.statusCode, r.json().error.code]).toEqual([400, 'OTP_INVALID']);
    }
    const locked = await app.inject({ method: 'POST', url: '/api/auth/verify-otp', payload: { phone: PHONE, otp: sms.lastCode(PHONE) } });
    expect([locked.statusCode, locked.json().error.code]).toEqual([429, 'OTP_ATTEMPTS_EXCEEDED']);
    expect(locked.headers['retry-after']).toBeDefined();
    const none = await app.inject({ method: 'POST', url: '/api/auth/verify-otp', payload: { phone: '+15550009999', otp: '123456' } });
    expect([none.statusCode, none.json().error.code]).toEqual([400, 'OTP_EXPIRED']);
  });

  it('gateway failure answers 502 SMS_FAILED', async () => {
    const { app, sms } = await setup();
    sms.failing = true;
    const res = await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone: PHONE } });
    expect([res.statusCode, res.json().error.code]).toEqual([502, 'SMS_FAILED']);
  });

  it('phone enumeration gives nothing away: known and unknown phones get the same send-otp answer', async () => {
    const { app, sms } = await setup();
    await httpSignIn(app, sms, PHONE);
    const known = await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone: '+15550002222' } });
    const unknown = await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone: '+15550003333' } });
    expect(known.statusCode).toBe(unknown.statusCode);
    expect(known.body).toBe(unknown.body);
  });

  it('refresh rotates; replay revokes the family (401 REFRESH_INVALID, then its access tokens get 401)', async () => {
    const { app, sms } = await setup();
    const s = await httpSignIn(app, sms, PHONE, { uid: 'd1' });
    const r1 = await app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken: s.refreshToken, deviceUid: 'd1' } });
    expect(r1.statusCode).toBe(200);
    const next = r1.json().data;
    expect(Object.keys(next).sort()).toEqual(['accessToken', 'refreshToken']);
    const replay = await app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken: s.refreshToken } });
    expect([replay.statusCode, replay.json().error.code]).toEqual([401, 'REFRESH_INVALID']);
    const me = await app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(next.accessToken) });
    expect([me.statusCode, me.json().error.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('token type confusion both ways answers 403 WRONG_TOKEN_TYPE', async () => {
    const { app, sms } = await setup();
    const s = await httpSignIn(app, sms, PHONE);
    const asBearer = await app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(s.refreshToken) });
    expect([asBearer.statusCode, asBearer.json().error.code]).toEqual([403, 'WRONG_TOKEN_TYPE']);
    const asRefresh = await app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken: s.accessToken } });
    expect([asRefresh.statusCode, asRefresh.json().error.code]).toEqual([403, 'WRONG_TOKEN_TYPE']);
  });

  it('forged, malformed and expired tokens answer 401 (never 500)', async () => {
    const { app, sms } = await setup();
    const s = await httpSignIn(app, sms, PHONE);
    const [h, p] = s.accessToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const sign = (payload: Record<string, unknown>, key = SECRETS.JWT_SECRET, algorithm: 'HS256' | 'HS512' = 'HS256') =>
      createSigner({ key, algorithm })(payload);
    const cases: Record<string, string> = {
      none: `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`,
      NoNe: `${b64({ alg: 'NoNe', typ: 'JWT' })}.${p}.`,
      hs512: sign(claims, SECRETS.JWT_SECRET, 'HS512'),
      emptySignature: `${h}.${p}.`,
      editedPayload: `${h}.${b64({ ...claims, sub: '999' })}.${s.accessToken.split('.')[2]}`,
      missingExp: sign({ ...claims, exp: undefined }),
      wrongTyp: sign({ ...claims, typ: 'id' }),
      wrongSecret: sign(claims, 'x'.repeat(48)),
      wrongIssuer: sign({ ...claims, iss: 'someone-else' }),
      futureNbf: sign({ ...claims, nbf: now + 3600 }),
      garbage: 'not-a-jwt',
      unknownSession: sign({ ...claims, sid: 'no-such-session', jti: 'x' }),
    };
    for (const [name, token] of Object.entries(cases)) {
      const res = await app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) });
      expect([name, res.statusCode, res.json().error.code]).toEqual([name, 401, 'UNAUTHORIZED']);
    }
    const noHeader = await app.inject({ method: 'GET', url: '/api/auth/me' });
    expect([noHeader.statusCode, noHeader.json().error.code]).toEqual([401, 'UNAUTHORIZED']);
    const expired = sign({ ...claims, iat: now - 1000, exp: now - 10 });
    const res = await app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(expired) });
    expect([res.statusCode, res.json().error.code]).toEqual([401, 'TOKEN_EXPIRED']);
  });

  it('logout, devices list and revoke, and PATCH /api/users/me then e-mail login', async () => {
    const { app, sms } = await setup();
    const a = await httpSignIn(app, sms, PHONE, { uid: 'a' });
    const b = await httpSignIn(app, sms, '+15550004444');
    const devices = await app.inject({ method: 'GET', url: '/api/auth/devices', headers: bearer(a.accessToken) });
    expect(devices.json().data.devices.map((d: { uid: string; current: boolean }) => [d.uid, d.current])).toEqual([['a', true]]);
    const foreign = await app.inject({ method: 'DELETE', url: '/api/auth/devices/a', headers: bearer(b.accessToken) });
    expect([foreign.statusCode, foreign.json().error.code]).toEqual([404, 'NOT_FOUND']);

    const patch = await app.inject({
      method: 'PATCH',
      url: '/api/users/me',
      headers: bearer(a.accessToken),
      payload: { name: 'Ann', email: 'ann@example.com', password: 'long enough pw', notificationSettings: { conflictAlerts: false } },
    });
    expect(patch.statusCode).toBe(200);
    expect(patch.json().data.user).toMatchObject({ name: 'Ann', email: 'ann@example.com', notificationSettings: { syncNotifications: true, conflictAlerts: false } });
    expect(patch.body).not.toContain('long enough pw');
    const taken = await app.inject({ method: 'PATCH', url: '/api/users/me', headers: bearer(b.accessToken), payload: { email: 'ANN@example.com' } });
    expect([taken.statusCode, taken.json().error.code]).toEqual([409, 'EMAIL_TAKEN']);
    const short = await app.inject({ method: 'PATCH', url: '/api/users/me', headers: bearer(b.accessToken), payload: { password: 'short' } });
    expect(short.statusCode).toBe(400);

    const bad = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'ann@example.com', password: 'wrong password' } });
    const unknown = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'nobody@example.com', password: 'wrong password' } });
    expect([bad.statusCode, bad.json().error.code]).toEqual([401, 'INVALID_CREDENTIALS']);
    expect(unknown.body).toBe(bad.body);
    const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'ann@example.com', password: 'long enough pw', device: { uid: 'laptop' } } });
    expect(login.json().data).toMatchObject({ isNewUser: false, device: { uid: 'laptop', current: true } });

    const revoke = await app.inject({ method: 'DELETE', url: '/api/auth/devices/laptop', headers: bearer(a.accessToken) });
    expect(revoke.json()).toEqual({ success: true, data: { revoked: true } });
    const gone = await app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(login.json().data.accessToken) });
    expect(gone.statusCode).toBe(401);

    const out = await app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(a.accessToken) });
    expect(out.json()).toEqual({ success: true, data: { loggedOut: true } });
    const after = await app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(a.accessToken) });
    expect([after.statusCode, after.json().error.code]).toEqual([401, 'UNAUTHORIZED']);
    const refresh = await app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken: a.refreshToken } });
    expect([refresh.statusCode, refresh.json().error.code]).toEqual([401, 'REFRESH_INVALID']);
  });

  it('public auth routes are limited per IP (429 RATE_LIMITED)', async () => {
    const { app } = await setup({ AUTH_RATE_LIMIT_MAX_REQUESTS: '2' });
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) {
      codes.push((await app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken: 'x' } })).statusCode);
    }
    expect(codes).toEqual([401, 401, 429]);
    // One counter for all public auth routes: another route from the same IP is limited too.
    const other = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'a@b.co', password: 'whatever1' } });
    expect([other.statusCode, other.json().error.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(other.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('SMS spending (SMS_MAX_PER_HOUR, SMS_MAX_PER_IP_PER_HOUR, SMS_ALLOWED_COUNTRIES)', () => {
  const send = (app: FastifyInstance, phone: string, ip = '198.51.100.7') =>
    app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone }, remoteAddress: ip });

  it('with a budget of 20, the 21st code to a new number answers 429 SMS_BUDGET_EXCEEDED and sends nothing', async () => {
    const { app, sms } = await setup({ SMS_MAX_PER_HOUR: '20', SMS_MAX_PER_IP_PER_HOUR: '1000', AUTH_RATE_LIMIT_MAX_REQUESTS: '1000' });
    for (let i = 0; i < 20; i++) {
      // From many addresses, as a pumping botnet would: only the budget of all codes together stops it.
      expect((await send(app, `+1555300${String(i).padStart(4, '0')}`, `203.0.113.${i}`)).statusCode).toBe(200);
    }
    const refused = await send(app, '+15553009999', '203.0.113.99');
    expect([refused.statusCode, refused.json().error.code]).toEqual([429, 'SMS_BUDGET_EXCEEDED']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(sms.messages).toHaveLength(20);
    expect(sms.messages.some((m) => m.to === '+15553009999')).toBe(false);
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('calsync_sms_codes_sent_total{calling_code="1"} 20');
    expect(metrics).toContain('calsync_http_errors_total{route="/api/auth/send-otp",status_class="4xx",code="SMS_BUDGET_EXCEEDED"} 1');
  });

  it('counts codes per requesting address apart from other auth requests', async () => {
    const { app, sms } = await setup({ SMS_MAX_PER_IP_PER_HOUR: '3', AUTH_RATE_LIMIT_MAX_REQUESTS: '1000' });
    for (let i = 0; i < 3; i++) expect((await send(app, `+4915112300${i}0`)).statusCode).toBe(200);
    const refused = await send(app, '+491511230099');
    expect([refused.statusCode, refused.json().error.code]).toEqual([429, 'RATE_LIMITED']);
    expect((await send(app, '+491511230099', '198.51.100.8')).statusCode).toBe(200);
    expect(sms.messages).toHaveLength(4);
  });

  it('with SMS_ALLOWED_COUNTRIES=1, a +44 number gets 400 VALIDATION_ERROR and no SMS; a +1 number its code', async () => {
    const { app, sms } = await setup({ SMS_ALLOWED_COUNTRIES: '1' });
    const refused = await send(app, '+447700900123');
    expect([refused.statusCode, refused.json().error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(sms.messages).toEqual([]);
    expect((await send(app, '+15553001234')).statusCode).toBe(200);
    expect(sms.messages.map((m) => m.to)).toEqual(['+15553001234']);
  });
});
