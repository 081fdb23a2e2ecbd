import { networkInterfaces } from 'node:os';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealServerProcess } from '../e2e/lib/server-process.js';
import { launchChromium, screenshotPath } from './lib/chromium.js';

/** This machine's first non-loopback IPv4 address (a VM, container or LAN address). */
function lanAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal);
  if (!found) throw new Error('this machine has no non-loopback IPv4 address to open the docs by');
  return found.address;
}

// Swagger UI opened the way an operator on another machine would: by the server's IP address over
// plain http. The server binds to that local interface address; the browser talks to this machine only.
describe('Swagger UI by IP address over plain http', () => {
  let server: RealServerProcess;
  let browser: Browser;
  const host = lanAddress();

  beforeAll(async () => {
    server = new RealServerProcess({ DATABASE_URL: 'pglite://memory', NODE_ENV: 'test', LOG_LEVEL: 'warn' }, { host });
    await server.start();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    if (server?.running) await server.terminate();
  });

  it('renders the operations', async () => {
    expect(server.baseUrl).toMatch(new RegExp(`^http://${host.replaceAll('.', '\\.')}:\\d+$`));
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (request) => failed.push(`${request.url()} ${request.failure()?.errorText ?? ''}`));
    page.on('pageerror', (err) => failed.push(err.message));
    await page.goto(`${server.baseUrl}/api-docs/`);
    await page.locator('.opblock').first().waitFor({ timeout: 60_000 });
    const operations = await page.locator('.opblock-summary-path').allTextContents();
    await page.screenshot({ path: screenshotPath('swagger-ui-by-ip'), fullPage: false });
    expect(operations.map((o) => o.replace(/\u200b/g, ''))).toEqual(expect.arrayContaining(['/api/sync/push', '/api/sync/changes', '/api/auth/send-otp', '/health/ready']));
    // Every asset came over plain http from the address the page was opened by.
    expect(failed).toEqual([]);
    await page.close();
  });
});
