/// <reference lib="dom" />
// (the functions passed to page.evaluate run in the page, with the DOM)
import AxeBuilder from '@axe-core/playwright';
import { randomInt } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEvent,
  eventInCalendar,
  indexedDbKeys,
  openScreen,
  renameEvent,
  signInWithPhone,
  signOut,
  syncNow,
  waitForStatus,
} from './lib/app-page.js';
import { startAppServer, type AppServer } from './lib/app-server.js';
import { launchChromium, screenshotPath } from './lib/chromium.js';

// The reference web client in real Chromium against the real server process: two devices of one
// phone (two browser contexts), offline edits, a conflict decided in the conflict centre, a reload
// while offline, two tabs of one device, sign out (every screen's accessibility and layout: layout.test.ts).

describe('the web client in Chromium, two devices of one phone', () => {
  let app: AppServer;
  let browser: Browser;
  let deviceA: BrowserContext;
  let deviceB: BrowserContext;
  let a: Page;
  let b: Page;
  const phone = `+1555${String(randomInt(1_000_000, 9_999_999))}`;
  const failures: string[] = [];
  /** The event title the conflict decision kept. */
  let kept = '';

  beforeAll(async () => {
    app = await startAppServer();
    browser = await launchChromium();
    deviceA = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    deviceB = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    a = await deviceA.newPage();
    b = await deviceB.newPage();
    for (const page of [a, b]) page.on('pageerror', (err) => failures.push(`${err.name}: ${err.message}`));
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('signs in with a phone and the code from the SMS on both devices', async () => {
    await signInWithPhone(a, app.appUrl, app.gateway, phone);
    await signInWithPhone(b, app.appUrl, app.gateway, phone);
    // Both reached "Synced" (signInWithPhone waits for it); a round may start again at any time
    // (the live stream, a device coming online), so wait for it rather than read it once.
    await waitForStatus(a, /Synced/);
    await waitForStatus(b, /Synced/);
  });

  it('a recurring event created on A shows up, expanded, on B', async () => {
    await createEvent(a, 'Standup', 'Daily');
    await waitForStatus(a, /Synced/);
    await syncNow(b);
    await eventInCalendar(b, 'Standup').waitFor();
    // Every day of the series in the month view: more than one occurrence.
    expect(await b.locator('.fc-event', { hasText: 'Standup' }).count()).toBeGreaterThan(1);
    await b.screenshot({ path: screenshotPath('calendar-month'), fullPage: true });
  });

  it('the same event edited on both while A is offline: a conflict both devices hear of (toast, badge), labelled per device, decided on B', async () => {
    await a.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    await deviceA.setOffline(true);
    await waitForStatus(a, /Offline/);
    await renameEvent(a, 'Standup', 'Standup (from A)');
    await waitForStatus(a, /Offline.*1 pending/);
    await a.screenshot({ path: screenshotPath('offline-indicator') });

    await renameEvent(b, 'Standup', 'Standup (from B)');
    await syncNow(b);

    // A's stale edit is applied over B's: A's version is the current one, B's is set aside.
    await deviceA.setOffline(false);
    await waitForStatus(a, /Synced/);
    await a.getByText('“Standup (from A)” was changed on two devices.', { exact: false }).waitFor();
    await syncNow(b);
    await b.getByText(/^“Standup \(from [AB]\)” was changed on two devices\./).waitFor();
    for (const page of [a, b]) expect(await page.getByTestId('conflict-count').textContent()).toBe('1');

    /** The conflict card's title row, by column heading: { "This device's version": …, "The other device's version": … }. */
    const titleRow = async (page: Page): Promise<Record<string, string>> => {
      await openScreen(page, 'Conflicts');
      await page.getByRole('button', { name: 'Keep mine' }).waitFor();
      const headings = await page.locator('.conflict thead th').allInnerTexts();
      const cells = await page.locator('.conflict tr', { has: page.getByRole('rowheader', { name: 'Title', exact: true }) }).locator('td').allInnerTexts();
      return Object.fromEntries(cells.map((text, i) => [headings[i + 1] as string, text]));
    };
    expect(await titleRow(a)).toEqual({ "This device's version": 'Standup (from A)', "The other device's version": 'Standup (from B)' });
    expect(await titleRow(b)).toEqual({ "This device's version": 'Standup (from B)', "The other device's version": 'Standup (from A)' });
    // Only the fields that differ, the others on request.
    const rows = b.locator('.conflict tbody th');
    expect(await rows.allInnerTexts()).toEqual(['Title']);
    await b.getByRole('button', { name: /^Show all fields/ }).click();
    expect(await rows.allInnerTexts()).toEqual(expect.arrayContaining(['Title', 'Starts', 'Ends', 'Calendar']));
    await a.screenshot({ path: screenshotPath('conflict-centre'), fullPage: true });

    // On B, "Keep mine" keeps B's version (it puts the set-aside version back), on both devices.
    await b.getByRole('button', { name: 'Keep mine' }).click();
    await b.getByText('No conflicts').waitFor();
    await waitForStatus(b, /Synced/);
    await openScreen(b, 'Calendar');
    await eventInCalendar(b, 'Standup (from B)').waitFor();
    await syncNow(a);
    await openScreen(a, 'Calendar');
    await eventInCalendar(a, 'Standup (from B)').waitFor();
    expect(await a.locator('.fc-event', { hasText: 'Standup (from A)' }).count()).toBe(0);
    expect(await b.locator('.fc-event', { hasText: 'Standup (from A)' }).count()).toBe(0);
    await a.getByTestId('conflict-count').waitFor({ state: 'detached' });
    kept = 'Standup (from B)';
  });

  it('reload while offline keeps the data and the pending edit; back online it syncs', async () => {
    await deviceA.setOffline(true);
    await waitForStatus(a, /Offline/);
    await createEvent(a, 'Written offline');
    await waitForStatus(a, /1 pending/);
    await a.reload();
    await eventInCalendar(a, 'Written offline').waitFor();
    await eventInCalendar(a, kept).waitFor();
    await waitForStatus(a, /Offline.*1 pending/);

    await deviceA.setOffline(false);
    await waitForStatus(a, /Synced/);
    await syncNow(b);
    await eventInCalendar(b, 'Written offline').waitFor();
  });

  it('two tabs of one device: one tab syncs, both show the change', async () => {
    const second = await deviceA.newPage();
    second.on('pageerror', (err) => failures.push(`${err.name}: ${err.message}`));
    await second.goto(app.appUrl);
    await eventInCalendar(second, 'Written offline').waitFor();
    const syncCalls = new Map<Page, number>([
      [a, 0],
      [second, 0],
    ]);
    for (const page of [a, second]) {
      page.on('request', (req) => {
        if (/\/api\/sync\/(push|changes)/.test(req.url())) syncCalls.set(page, (syncCalls.get(page) ?? 0) + 1);
      });
    }
    await createEvent(second, 'From the second tab');
    await eventInCalendar(a, 'From the second tab').waitFor();
    // The leading tab hears of the other tab's write and pushes it after its usual debounce (the
    // 60 s timer is not what sends it: the wait below is far shorter).
    await waitForStatus(a, /Synced/, 10_000);
    await waitForStatus(second, /Synced/, 10_000);
    await syncNow(b);
    await eventInCalendar(b, 'From the second tab').waitFor();
    const calls = [syncCalls.get(a) ?? 0, syncCalls.get(second) ?? 0];
    // Exactly one of the two tabs talked to the sync routes.
    expect(calls.filter((n) => n > 0)).toHaveLength(1);
    await second.close();
  });

  it('"Make default" clicked on a calendar made a moment before: it becomes the default on both devices, not merged away', async () => {
    await openScreen(a, 'Calendars');
    await a.getByLabel('Calendar name').fill('Family');
    await a.getByRole('button', { name: 'Add calendar' }).click();
    // At once, within the debounce that holds the create back.
    await a.getByRole('button', { name: 'Make default: Family' }).click();
    await waitForStatus(a, /Synced/, 10_000);
    await syncNow(b);
    await openScreen(b, 'Calendars');
    for (const page of [a, b]) {
      const family = page.locator('li', { has: page.getByRole('button', { name: 'Rename Family' }) });
      await family.locator('.badge', { hasText: 'Default' }).waitFor();
      expect(await page.locator('.badge', { hasText: 'Default' }).count()).toBe(1);
      await page.getByRole('button', { name: 'Make default: Personal' }).waitFor();
    }
  });

  it('is usable from the keyboard alone: Tab to New event, type, Enter saves', async () => {
    await openScreen(a, 'Calendar');
    await a.locator('body').focus();
    let focused = '';
    for (let i = 0; i < 40 && focused !== 'New event'; i++) {
      await a.keyboard.press('Tab');
      focused = await a.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    }
    expect(focused).toBe('New event');
    await a.keyboard.press('Enter');
    // The dialog puts the focus in its first field.
    expect(await a.evaluate(() => (document.activeElement as HTMLInputElement | null)?.labels?.[0]?.textContent)).toBe('Title');
    await a.keyboard.type('Typed, not clicked');
    await a.keyboard.press('Enter');
    await a.getByRole('dialog').waitFor({ state: 'detached' });
    await eventInCalendar(a, 'Typed, not clicked').waitFor();
  });

  it('sign out wipes IndexedDB and shows the sign-in screen (itself accessible)', async () => {
    await signOut(a);
    await a.getByLabel('Phone number').waitFor();
    // Signing out oneself is no surprise: no "you were signed out" notice.
    expect(await a.getByText(/You were signed out/).count()).toBe(0);
    // Nothing is left: the database still exists, but every object store of it is empty (no
    // records, outbox, cursor, tokens, user or device uid).
    const left = await indexedDbKeys(a);
    expect(Object.keys(left).sort()).toEqual(['calsync/meta', 'calsync/outbox', 'calsync/records']);
    expect(Object.values(left).flat()).toEqual([]);
    const result = await new AxeBuilder({ page: a }).analyze();
    expect(result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  });

  it('the devices screen lists the devices; revoking one signs it out, and its sign-in screen says why', async () => {
    // A third device C of the same phone; B revokes it.
    const deviceC = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const c = await deviceC.newPage();
    c.on('pageerror', (err) => failures.push(`${err.name}: ${err.message}`));
    await signInWithPhone(c, app.appUrl, app.gateway, phone);
    await openScreen(b, 'Devices');
    const rows = b.locator('table.devices tbody tr');
    await rows.nth(2).waitFor();
    expect(await rows.count()).toBe(3);
    // Both other devices (A, signed out earlier, and C) carry the same name: revoke both.
    for (const left of [2, 1]) {
      await b.getByRole('button', { name: /^Revoke / }).first().click();
      await b.waitForFunction((n) => document.querySelectorAll('table.devices tbody tr').length === n, left);
    }
    expect(await rows.innerText()).toContain('this device');
    // C hears it on its live stream, its next request is refused, and it is back at sign-in with the reason.
    await c.getByText(/You were signed out on this device/).waitFor({ timeout: 30_000 });
    await c.getByLabel('Phone number').waitFor();
    await c.screenshot({ path: screenshotPath('session-ended') });
    const result = await new AxeBuilder({ page: c }).analyze();
    expect(result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    expect(failures).toEqual([]);
  });
});
