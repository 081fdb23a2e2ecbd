/// <reference lib="dom" />
import { randomInt } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import { createSyncClient, MemoryStore } from '@calsync/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openScreen, signInWithPhone, syncNow, waitForStatus } from './lib/app-page.js';
import { startAppServer, type AppServer } from './lib/app-server.js';
import { launchChromium, screenshotPath } from './lib/chromium.js';

// The doors to other calendar apps, as a person uses them in Chromium, at desktop and phone size:
// "Import .ics" on the Calendars screen, a calendar's "Subscription link", and an app password for
// a CalDAV app on the Devices screen; then the link and the password are used the way another app
// would (a GET of the feed, a CalDAV PROPFIND) from outside the browser.

const FILE = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Google Inc//Google Calendar 70.9054//EN',
  'BEGIN:VEVENT',
  'UID:browser-import-1@example.com',
  'DTSTAMP:20260101T000000Z',
  'SUMMARY:Imported planning',
  'DTSTART;TZID=America/New_York:20260105T100000',
  'DTEND;TZID=America/New_York:20260105T110000',
  'RRULE:FREQ=WEEKLY;COUNT=4',
  'END:VEVENT',
  'BEGIN:VJOURNAL',
  'UID:journal@example.com',
  'DTSTAMP:20260101T000000Z',
  'SUMMARY:Notes',
  'END:VJOURNAL',
  'END:VCALENDAR',
  '',
].join('\r\n');

/** Serious and critical axe violations in the list of calendars. */
const axeProblems = async (page: Page) =>
  (await new AxeBuilder({ page }).include('.plain-list').analyze()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.html.slice(0, 120)).join(' | ')}`);

/** Whether the page scrolls sideways (it must not, on a phone either). */
const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

/** The elements that stick out to the right of the viewport (what to mend when a page scrolls sideways). */
const sticksOut = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll('body *'))
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}: ${Math.round(e.getBoundingClientRect().right)}`),
  );

describe('import, subscription links and app passwords in Chromium', () => {
  let app: AppServer;
  let browser: Browser;
  let desktop: Page;
  let phone: Page;
  const number = `+1555${String(randomInt(1_000_000, 9_999_999))}`;
  const failures: string[] = [];

  beforeAll(async () => {
    app = await startAppServer();
    browser = await launchChromium();
    desktop = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'America/New_York', locale: 'en-US' })).newPage();
    phone = await (await browser.newContext({ viewport: { width: 390, height: 844 }, timezoneId: 'America/New_York', locale: 'en-US', hasTouch: true })).newPage();
    for (const page of [desktop, phone]) page.on('pageerror', (err) => failures.push(`${err.name}: ${err.message}`));
    await signInWithPhone(desktop, app.appUrl, app.gateway, number);
    await signInWithPhone(phone, app.appUrl, app.gateway, number);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('"Import .ics" imports a file into the chosen calendar, says what it skipped, and adds nothing the second time', async () => {
    await openScreen(desktop, 'Calendars');
    const importOnce = async () => {
      const chooser = desktop.waitForEvent('filechooser');
      await desktop.getByRole('button', { name: 'Import .ics' }).click();
      await (await chooser).setFiles({ name: 'planning.ics', mimeType: 'text/calendar', buffer: Buffer.from(FILE) });
    };
    await importOnce();
    await expect.poll(() => desktop.locator('.import-result').textContent()).toBe('Imported: 1 added, 0 updated, 0 already here. Not imported: a VJOURNAL (calsync holds events and tasks).');
    await desktop.screenshot({ path: screenshotPath('interop-calendars-desktop'), fullPage: true });
    await importOnce();
    await expect.poll(() => desktop.locator('.import-result').textContent()).toMatch(/^Imported: 0 added, 0 updated, 1 already here\./);
    await waitForStatus(desktop, /Synced/);
    // The other device sees the series at 10:00 New York.
    await openScreen(phone, 'Calendar');
    await syncNow(phone);
    expect(failures).toEqual([]);
  });

  it('"Subscription link" gives a URL that serves the calendar; after a reload the screen says it is shared, "New link" replaces the link, and "Stop sharing" ends every link of the calendar', async () => {
    const personal = (page: Page) => page.getByRole('listitem').filter({ has: page.getByRole('form', { name: 'Calendar Personal' }) });
    const status = async (url: string) => (await fetch(url)).status;
    await openScreen(phone, 'Calendars');
    await personal(phone).getByRole('button', { name: 'Subscription link of Personal' }).click();
    const link = personal(phone).getByRole('textbox', { name: /^Subscription link of / });
    await link.waitFor();
    const first = await link.inputValue();
    expect(first).toMatch(/\/feeds\/[A-Za-z0-9_-]{32}\.ics$/);
    expect(await scrollsSideways(phone), (await sticksOut(phone)).join('; ')).toBe(false);
    expect(await axeProblems(phone)).toEqual([]);
    await phone.screenshot({ path: screenshotPath('interop-calendars-phone'), fullPage: true });
    const feed = await fetch(first);
    expect(feed.status).toBe(200);
    expect(feed.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(await feed.text()).toContain('SUMMARY:Imported planning');

    // After a reload the URL cannot be shown again (only a hash of its token is kept), but the
    // screen says the calendar is shared, and a new link replaces the old one, which stops at once.
    await phone.reload();
    await openScreen(phone, 'Calendars');
    await personal(phone).getByText(/^Shared by link since \w{3} \d{1,2}, \d{1,2}:\d{2}\s[AP]M$/).waitFor();
    expect(await personal(phone).getByRole('button', { name: /^Subscription link of / }).count()).toBe(0);
    expect(await scrollsSideways(phone), (await sticksOut(phone)).join('; ')).toBe(false);
    expect(await axeProblems(phone)).toEqual([]);
    await phone.screenshot({ path: screenshotPath('interop-shared-phone'), fullPage: true });
    await personal(phone).getByRole('button', { name: 'New link for Personal' }).click();
    await link.waitFor();
    const second = await link.inputValue();
    expect(second).not.toBe(first);
    await personal(phone).getByText('The earlier link no longer works.', { exact: false }).waitFor();
    expect(await scrollsSideways(phone), (await sticksOut(phone)).join('; ')).toBe(false);
    await phone.screenshot({ path: screenshotPath('interop-new-link-phone'), fullPage: true });
    expect([await status(first), await status(second)]).toEqual([404, 200]);

    // Another app of the account makes a link of the same calendar through the API, which allows
    // several (as this screen did before each click made one): "Stop sharing" ends them all.
    const api = createSyncClient({ baseUrl: app.server.baseUrl, store: new MemoryStore(), device: { platform: 'test', name: 'script' }, periodicMs: 3_600_000, notifications: false });
    try {
      await api.open();
      await api.auth.sendOtp(number);
      await api.auth.verifyOtp(number, app.gateway.lastCode(number));
      await api.sync();
      const third = (await api.feeds.create(api.calendars.list().find((c) => c.name === 'Personal')!.uid)).url;
      expect(await status(third)).toBe(200);
      await desktop.reload();
      await openScreen(desktop, 'Calendars');
      await personal(desktop).getByText(/^Shared by 2 links since /).waitFor();
      await desktop.screenshot({ path: screenshotPath('interop-shared-desktop'), fullPage: true });
      await personal(desktop).getByRole('button', { name: 'Stop sharing Personal' }).click();
      await personal(desktop).getByRole('button', { name: 'Subscription link of Personal' }).waitFor();
      await personal(desktop).getByRole('status').filter({ hasText: 'Personal is no longer shared' }).waitFor();
      expect([await status(first), await status(second), await status(third)]).toEqual([404, 404, 404]);
      expect(await api.feeds.list()).toEqual([]);
    } finally {
      await api.close();
    }
    // The phone, reloaded, shows the calendar as not shared.
    await phone.reload();
    await openScreen(phone, 'Calendars');
    await personal(phone).getByRole('button', { name: 'Subscription link of Personal' }).waitFor();
    expect(await personal(phone).getByText(/^Shared by/).count()).toBe(0);
    expect(failures).toEqual([]);
  });

  it('an app password made on the Devices screen signs a CalDAV app in, is listed as a device, can be renamed, and revoking it ends it', async () => {
    await openScreen(phone, 'Devices');
    await phone.getByLabel('App name').fill('Thunderbird');
    await phone.getByRole('button', { name: 'Create app password' }).click();
    const shown = phone.getByRole('definition').filter({ hasText: /^[A-Za-z0-9_-]{24}$/ });
    await shown.waitFor();
    const password = (await shown.textContent())!.trim();
    expect(await phone.getByRole('definition').filter({ hasText: '/dav/' }).textContent()).toBe(`${new URL(app.appUrl).origin}/dav/`);
    await phone.getByRole('cell', { name: 'Thunderbird', exact: true }).waitFor();
    expect(await scrollsSideways(phone), (await sticksOut(phone)).join('; ')).toBe(false);
    await phone.screenshot({ path: screenshotPath('interop-devices-phone'), fullPage: true });
    const propfind = () =>
      fetch(`${new URL(app.appUrl).origin}/dav/`, {
        method: 'PROPFIND',
        headers: { authorization: `Basic ${Buffer.from(`${number}:${password}`).toString('base64')}`, depth: '0' },
        body: '<d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/></d:prop></d:propfind>',
      });
    expect((await propfind()).status).toBe(207);
    // Renamed in its row: the new name is what the list shows, and the app keeps working.
    await phone.getByRole('button', { name: 'Rename Thunderbird' }).click();
    await phone.getByLabel('New name').fill('Thunderbird at home');
    expect(await scrollsSideways(phone), (await sticksOut(phone)).join('; ')).toBe(false);
    await phone.screenshot({ path: screenshotPath('rename-device-phone'), fullPage: true });
    await phone.getByRole('button', { name: 'Save name' }).click();
    await phone.getByRole('cell', { name: 'Thunderbird at home', exact: true }).waitFor();
    expect((await propfind()).status).toBe(207);
    await phone.getByRole('button', { name: 'Revoke Thunderbird at home' }).click();
    await phone.getByRole('cell', { name: 'Thunderbird at home', exact: true }).waitFor({ state: 'detached' });
    expect((await propfind()).status).toBe(401);
    expect(failures).toEqual([]);
  });
});
