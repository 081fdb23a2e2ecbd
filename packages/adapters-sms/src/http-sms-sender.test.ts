import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStandInSmsGateway, type StandInSmsGateway } from '@calsync/testkit';
import { HttpSmsSender, SmsGatewayError } from './http-sms-sender.js';
import { LoggingSmsSender } from './logging-sms-sender.js';

describe('HttpSmsSender against a stand-in gateway', () => {
  let gw: StandInSmsGateway;
  beforeAll(async () => {
    gw = await startStandInSmsGateway();
  });
  afterAll(() => gw.close());
  beforeEach(() => {
    gw.status = 202;
    gw.delayMs = 0;
    gw.rejectReason = 'message rejected';
    gw.requests.length = 0;
  });
  const sender = (timeoutMs?: number) => new HttpSmsSender({ url: gw.url, apiKey: 'k-123', sender: 'CalSync', ...(timeoutMs ? { timeoutMs } : {}) });

  it('POSTs JSON {from,to,text} with the Bearer key', async () => {
    await sender().send('+491701234567', 'Your code is 123456');
    expect(gw.requests).toHaveLength(1);
    const req = gw.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.headers.authorization).toBe('Bearer k-123');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ from: 'CalSync', to: '+491701234567', text: 'Your code is 123456' });
    expect(gw.lastCode('+491701234567')).toBe('123456');
  });

  it('accepts any 2xx', async () => {
    gw.status = 200;
    await expect(sender().send('+491701234567', 'x')).resolves.toBeUndefined();
  });

  it.each([400, 401, 500, 503])('fails clearly on %i without leaking the key or text', async (status) => {
    gw.status = status;
    const err = await sender().send('+491701234567', 'code 654321').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SmsGatewayError);
    expect((err as SmsGatewayError).status).toBe(status);
    expect((err as SmsGatewayError).kind).toBe('rejected');
    expect((err as Error).message).toMatch(new RegExp(`^SMS gateway answered ${status} [A-Za-z ]+: message rejected$`));
    expect(String((err as Error).message)).not.toMatch(/k-123|654321|\+49/);
  });

  it("names the gateway's reason but masks a phone number or code it echoes", async () => {
    gw.status = 422;
    gw.rejectReason = 'number +49 170 1234567 is not reachable (code 654321)\nsecond line';
    const err = (await sender().send('+491701234567', 'code 654321').catch((e: unknown) => e)) as SmsGatewayError;
    expect(err.message).toBe('SMS gateway answered 422 Unprocessable Entity: number … is not reachable (code …) second line');
  });

  it('fails with a timeout when the gateway does not answer in time', async () => {
    gw.delayMs = 2000;
    const err = await sender(100).send('+491701234567', 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SmsGatewayError);
    expect((err as SmsGatewayError).kind).toBe('timeout');
    expect((err as Error).message).toBe('SMS gateway timed out after 100 ms');
  });

  it('fails when nothing listens', async () => {
    // A port that was free a moment ago: nothing listens there (port 1 would be refused by fetch itself).
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const dead = new HttpSmsSender({ url: `http://127.0.0.1:${port}/x`, apiKey: 'k', sender: 's' });
    const err = (await dead.send('+491701234567', 'x').catch((e: unknown) => e)) as SmsGatewayError;
    expect(err).toBeInstanceOf(SmsGatewayError);
    expect(err.kind).toBe('unreachable');
    expect(err.message).toBe(`SMS gateway unreachable (connect ECONNREFUSED 127.0.0.1:${port})`);
  });
});

describe('LoggingSmsSender', () => {
  it('logs to and text at info', async () => {
    const lines: { fields: Record<string, unknown>; message: string }[] = [];
    await new LoggingSmsSender({ info: (fields, message) => lines.push({ fields, message }) }).send('+491701234567', 'code 111222');
    expect(lines).toEqual([{ fields: { to: '+491701234567', text: 'code 111222' }, message: expect.any(String) }]);
  });
});
