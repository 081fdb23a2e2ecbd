/// <reference lib="dom" />
import { createSyncClient, MemoryStore, type SyncClient } from '@calsync/client';
import { randomInt } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInWithPhone } from './lib/app-page.js';
import { startAppServer, type AppServer } from './lib/app-server.js';
import { launchChromium, screenshotPath } from './lib/chromium.js';

// A reminder due in 8 s, written by another device of the user, shows as a toast in the web
// client; in a browser context that granted the Notification permission it is also a browser
// Notification (the page's Notification constructor is wrapped to record what it creates).

declare global {
  interface Window {
    __notifications?: { title: string; body: string | undefined }[];
  }
}

/** Records every Notification the page creates successfully. */
const RECORD_NOTIFICATIONS = (): void => {
  const Real = window.Notification;
  window.__notifications = [];
  class Recording extends Real {
    constructor(title: string, options?: NotificationOptions) {
      super(title, options);
      window.__notifications!.push({ title, body: options?.body });
    }
  }
  window.Notification = Recording;
};

describe('due reminders in the web client, in Chromium', () => {
  let app: AppServer;
  let browser: Browser;
  let plain: Page;
  let allowed: Page;
  let other: SyncClient;
  const contexts: BrowserContext[] = [];
  const phone = `+1555${String(randomInt(1_000_000, 9_999_999))}`;
  const failures: string[] = [];

  beforeAll(async () => {
    app = await startAppServer();
    browser = await launchChromium();
    const context = async (granted: boolean) => {
      const c = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', ...(granted ? { permissions: ['notifications'] } : {}) });
      contexts.push(c);
      await c.addInitScript(RECORD_NOTIFICATIONS);
      const page = await c.newPage();
      page.on('pageerror', (err) => failures.push(`${err.name}: ${err.message}`));
      return page;
    };
    plain = await context(false);
    allowed = await context(true);
    for (const page of [plain, allowed]) await signInWithPhone(page, app.appUrl, app.gateway, phone);
    other = createSyncClient({ baseUrl: app.server.baseUrl, store: new MemoryStore(), device: { platform: 'test', name: 'phone' }, periodicMs: 3_600_000, notifications: false });
    await other.open();
    await other.auth.sendOtp(phone);
    await other.auth.verifyOtp(phone, app.gateway.lastCode(phone));
  });

  afterAll(async () => {
    await other?.close();
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await app?.stop();
  });

  it('a reminder due in 8 s shows its toast, and with the permission granted a Notification too', async () => {
    expect(await plain.evaluate(() => Notification.permission)).toBe('default');
    expect(await allowed.evaluate(() => Notification.permission)).toBe('granted');
    await plain.getByRole('button', { name: 'Turn on notifications' }).waitFor();
    expect(await allowed.getByRole('button', { name: 'Turn on notifications' }).count()).toBe(0);

    const taskUid = await other.tasks.put({ title: 'Water the plants' });
    await other.reminders.put({ taskUid, remindAt: new Date(Date.now() + 8_000).toISOString() });
    await other.sync();

    for (const page of [plain, allowed]) {
      await page.getByRole('region', { name: 'Notifications' }).getByText('Reminder: Water the plants', { exact: false }).waitFor({ timeout: 40_000 });
    }
    await plain.screenshot({ path: screenshotPath('reminder-toast') });
    await allowed.waitForFunction(() => (window.__notifications?.length ?? 0) > 0, undefined, { timeout: 10_000 });
    const created = await allowed.evaluate(() => window.__notifications);
    expect(created).toHaveLength(1);
    expect(created![0]!.title).toBe('Water the plants');
    expect(await plain.evaluate(() => window.__notifications?.length)).toBe(0);
    expect(failures).toEqual([]);
  });
});
