import { startStandInSmsGateway, type StandInSmsGateway } from '@calsync/testkit';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, RealServerProcess } from './lib/server-process.js';

// The "Client SDK" example of the README, run as written (a Node script) against the real server
// process: the test only answers its prompt with the code the stand-in SMS gateway received.

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const block = /<!-- client-example:start -->\s*```ts\n([\s\S]*?)```\s*<!-- client-example:end -->/.exec(readme);

describe('README "Client SDK" example', () => {
  let gateway: StandInSmsGateway;
  let server: RealServerProcess;
  const dir = join(REPO_ROOT, 'e2e', '.tmp');
  const file = join(dir, `readme-example-${process.pid}.ts`);

  beforeAll(async () => {
    gateway = await startStandInSmsGateway();
    server = new RealServerProcess({
      DATABASE_URL: 'pglite://memory',
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      SMS_GATEWAY_URL: gateway.url,
      SMS_GATEWAY_API_KEY: 'readme-example-key-0123456789',
      SMS_GATEWAY_SENDER: 'Calsync',
    });
    await server.start();
  }, 120_000);

  afterAll(async () => {
    rmSync(file, { force: true });
    if (server?.running) await server.terminate();
    await gateway?.close();
  }, 60_000);

  it('is about 20 lines and runs as written: signs in, writes an event, syncs it', async () => {
    expect(block, 'README has the marked example').not.toBeNull();
    const code = block![1]!;
    expect(code.trim().split('\n').length).toBeLessThanOrEqual(25);
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, code);
    const phone = '+15550100177';
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', file], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CALSYNC_URL: server.baseUrl, CALSYNC_PHONE: phone },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const deadline = Date.now() + 60_000;
    while (!out.includes('Code from the SMS')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no prompt:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.stdin.end(`${gateway.lastCode(phone)}\n`);
    expect(await exited, out).toBe(0);
    expect(out).toContain("title: 'Standup'");
    expect(out).toMatch(/version: '[0-9]+'/);
    expect(out).toMatch(/pending: 0/);
    expect(out).toContain('signedIn: true');
  });
});
