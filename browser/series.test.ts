/// <reference lib="dom" />
import { randomInt } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openScreen, signInWithPhone, syncNow, waitForStatus } from './lib/app-page.js';
import { startAppServer, type AppServer } from './lib/app-server.js';
import { launchChromium, screenshotPath } from './lib/chromium.js';

// Recurring and all-day events in real Chromium in real time zones: a weekly 09:00 series made in
// Berlin in January is at 09:00 in July (after the change to summer time), one occurrence edited
// with "This event" changes on the other device on that date only, and an all-day date made in
// Berlin is the same date in Los Angeles, and a daily series' End date in Los Angeles stays its
// last day when the series is reopened and saved.

/** The year whose January and July are both in the past or this month, so the calendar can reach them with "Previous". */
function seriesYear(): number {
  const now = new Date();
  return now.getMonth() >= 6 ? now.getFullYear() : now.getFullYear() - 1;
}

/** The first Monday of January of `year`, as `YYYY-MM-DD`. */
function firstMonday(year: number): string {
  const day = new Date(Date.UTC(year, 0, 1)).getUTCDay();
  return `${year}-01-${String(1 + ((8 - day) % 7)).padStart(2, '0')}`;
}

/** Moves the month view to `year`-`month` (1-12) with the toolbar's Previous and Next buttons. */
async function showMonth(page: Page, year: number, month: number): Promise<void> {
  await openScreen(page, 'Calendar');
  await page.getByRole('button', { name: 'Month', exact: true }).click();
  // The month shown now: the first day cell that is not another month's.
  const shown = (await page.locator('.fc-daygrid-day:not(.fc-day-other)').first().getAttribute('data-date')) ?? '';
  let steps = (year - Number(shown.slice(0, 4))) * 12 + (month - Number(shown.slice(5, 7)));
  const button = page.getByRole('button', { name: steps < 0 ? /^Previous/ : /^Next/ });
  while (steps !== 0) {
    await button.first().click();
    steps += steps < 0 ? 1 : -1;
  }
  await page.locator(`td[data-date="${year}-${String(month).padStart(2, '0')}-15"]`).waitFor();
}

/** The events shown in the month grid's cell of `date` (`YYYY-MM-DD`). */
function eventsOn(page: Page, date: string, title: string): Locator {
  return page.locator(`td[data-date="${date}"] .fc-event`, { hasText: title });
}

describe('series and all-day events across time zones, in Chromium', () => {
  let app: AppServer;
  let browser: Browser;
  let berlinA: Page;
  let berlinB: Page;
  let losAngeles: Page;
  const phone = `+1555${String(randomInt(1_000_000, 9_999_999))}`;
  const year = seriesYear();
  const failures: string[] = [];

  beforeAll(async () => {
    app = await startAppServer();
    browser = await launchChromium();
    const context = (timezoneId: string) => browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId, locale: 'en-US' });
    berlinA = await (await context('Europe/Berlin')).newPage();
    berlinB = await (await context('Europe/Berlin')).newPage();
    losAngeles = await (await context('America/Los_Angeles')).newPage();
    for (const page of [berlinA, berlinB, losAngeles]) page.on('pageerror', (err) => failures.push(`${err.name}: ${err.message}`));
    for (const page of [berlinA, berlinB, losAngeles]) await signInWithPhone(page, app.appUrl, app.gateway, phone);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('a weekly 09:00 series made in January in Berlin shows at 09:00 in July', async () => {
    await openScreen(berlinA, 'Calendar');
    await berlinA.getByRole('button', { name: 'New event' }).click();
    const dialog = berlinA.getByRole('dialog');
    await dialog.getByLabel('Title').fill('Team sync');
    await dialog.getByLabel('Starts').fill(`${firstMonday(year)}T09:00`);
    await dialog.getByLabel('Ends').fill(`${firstMonday(year)}T09:30`);
    await dialog.getByLabel('Repeats').selectOption({ label: 'Weekly' });
    // A weekly rule repeats on its start's weekday until other days are chosen: the editor shows it.
    const weekdays = dialog.getByRole('group', { name: 'On days' }).getByRole('checkbox');
    expect(await weekdays.evaluateAll((els) => els.map((el) => (el as HTMLInputElement).checked))).toEqual([true, false, false, false, false, false, false]);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitForStatus(berlinA, /Synced/);

    await showMonth(berlinA, year, 1);
    expect(await berlinA.locator('.fc-event', { hasText: 'Team sync' }).first().locator('.fc-event-time').textContent()).toBe('9:00 AM');
    await showMonth(berlinA, year, 7);
    const july = berlinA.locator('.fc-event', { hasText: 'Team sync' });
    expect(await july.count()).toBeGreaterThanOrEqual(4);
    expect(new Set(await july.locator('.fc-event-time').allTextContents())).toEqual(new Set(['9:00 AM']));
    await berlinA.screenshot({ path: screenshotPath('series-july-berlin'), fullPage: true });
  });

  it('"This event" changes one occurrence; the other device shows the change on that date only', async () => {
    const mondays = await berlinA.locator('td[data-date] .fc-event', { hasText: 'Team sync' }).evaluateAll((els) =>
      els.map((el) => el.closest('td')?.getAttribute('data-date') ?? ''),
    );
    const target = mondays[1]!;
    await eventsOn(berlinA, target, 'Team sync').click();
    const dialog = berlinA.getByRole('dialog');
    expect(await dialog.getByLabel('Starts').inputValue()).toBe(`${target}T09:00`);
    expect(await dialog.getByRole('checkbox', { name: 'Mon' }).isChecked()).toBe(true);
    await dialog.getByLabel('Title').fill('Team sync at the lake');
    await expect.poll(() => dialog.getByRole('radio', { name: 'This event', exact: true }).isChecked()).toBe(true);
    await dialog.getByRole('radio', { name: 'This and following events' }).waitFor();
    await dialog.getByRole('radio', { name: 'All events' }).waitFor();
    await berlinA.screenshot({ path: screenshotPath('occurrence-dialog'), fullPage: true });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitForStatus(berlinA, /Synced/);

    await syncNow(berlinB);
    await showMonth(berlinB, year, 7);
    await eventsOn(berlinB, target, 'Team sync at the lake').waitFor();
    for (const day of mondays.filter((d) => d !== target)) {
      expect([day, await eventsOn(berlinB, day, 'at the lake').count(), await eventsOn(berlinB, day, 'Team sync').count()]).toEqual([day, 0, 1]);
    }
    expect(await eventsOn(berlinB, target, 'Team sync').count()).toBe(1);
  });

  it('each device cancels a different occurrence, one of them offline: both stay cancelled on both, and no one is asked', async () => {
    const mondays = await berlinA.locator('td[data-date] .fc-event', { hasText: 'Team sync' }).evaluateAll((els) =>
      [...new Set(els.map((el) => el.closest('td')?.getAttribute('data-date') ?? ''))],
    );
    const [onB, onA] = [mondays[2]!, mondays[3]!];
    /** Deletes "This event" on `day` in the month shown. */
    const cancel = async (page: Page, day: string) => {
      await eventsOn(page, day, 'Team sync').click();
      const dialog = page.getByRole('dialog');
      await expect.poll(() => dialog.getByRole('radio', { name: 'This event', exact: true }).isChecked()).toBe(true);
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
      await eventsOn(page, day, 'Team sync').waitFor({ state: 'detached' });
    };
    await syncNow(berlinB);
    await berlinB.context().setOffline(true);
    await waitForStatus(berlinB, /Offline/);
    await cancel(berlinB, onB);
    await waitForStatus(berlinB, /Offline.*1 pending/);
    await cancel(berlinA, onA);
    await waitForStatus(berlinA, /Synced/);
    // B's edit of the series is stale now: the server applies it and records a conflict, which B
    // settles (it merges the two cancellations) before anyone lists it.
    await berlinB.context().setOffline(false);
    await waitForStatus(berlinB, /Synced/);
    await syncNow(berlinB);
    await syncNow(berlinA);
    for (const page of [berlinA, berlinB]) {
      expect([await eventsOn(page, onA, 'Team sync').count(), await eventsOn(page, onB, 'Team sync').count(), await eventsOn(page, mondays[0]!, 'Team sync').count()]).toEqual([0, 0, 1]);
      expect([await page.getByTestId('conflict-count').count(), await page.getByText('was changed on two devices').count()]).toEqual([0, 0]);
    }
    await berlinB.screenshot({ path: screenshotPath('two-cancellations'), fullPage: true });
  });

  it('a daily series ending on 6 February in Los Angeles keeps that end when reopened and renamed', async () => {
    await openScreen(losAngeles, 'Calendar');
    await losAngeles.getByRole('button', { name: 'New event' }).click();
    const dialog = losAngeles.getByRole('dialog');
    await dialog.getByLabel('Title').fill('Standup');
    // Moving the start moves the end with it: the new event keeps its length.
    const [start0, end0] = [await dialog.getByLabel('Starts').inputValue(), await dialog.getByLabel('Ends').inputValue()];
    await dialog.getByLabel('Starts').fill(`${year}-02-02T09:00`);
    const length = Date.parse(`${end0}Z`) - Date.parse(`${start0}Z`);
    expect(length).toBeGreaterThan(0);
    expect(await dialog.getByLabel('Ends').inputValue()).toBe(new Date(Date.parse(`${year}-02-02T09:00Z`) + length).toISOString().slice(0, 16));
    await dialog.getByLabel('Ends').fill(`${year}-02-02T09:15`);
    await dialog.getByLabel('Repeats').selectOption({ label: 'Daily' });
    await dialog.getByRole('radio', { name: 'On date' }).check();
    await dialog.getByLabel('End date').fill(`${year}-02-06`);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitForStatus(losAngeles, /Synced/);

    await showMonth(losAngeles, year, 2);
    const days = ['02', '03', '04', '05', '06', '07'].map((d) => `${year}-02-${d}`);
    const shown = async (title: string) => Promise.all(days.map((d) => eventsOn(losAngeles, d, title).count()));
    expect(await shown('Standup')).toEqual([1, 1, 1, 1, 1, 0]);
    // The End date is the series' last day in its zone (its UNTIL, 07:59:59 UTC on the 7th, read
    // as a UTC date showed the 7th, and each save moved the end a day later).
    await eventsOn(losAngeles, `${year}-02-04`, 'Standup').click();
    expect(await dialog.getByLabel('End date').inputValue()).toBe(`${year}-02-06`);
    await dialog.getByLabel('Title').fill('Standup (video)');
    // One occurrence ("This event", the default) stays in its series' calendar; the whole series may move.
    expect(await dialog.getByLabel('Calendar').isDisabled()).toBe(true);
    await dialog.getByText('One occurrence stays in its series’ calendar').waitFor();
    await dialog.getByRole('radio', { name: 'All events' }).check();
    expect(await dialog.getByLabel('Calendar').isEnabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitForStatus(losAngeles, /Synced/);
    await eventsOn(losAngeles, `${year}-02-02`, 'Standup (video)').waitFor();
    expect(await shown('Standup')).toEqual([1, 1, 1, 1, 1, 0]);
    expect(await shown('Standup (video)')).toEqual([1, 1, 1, 1, 1, 0]);
  });

  it('an all-day event on 10 March made in Berlin is on 10 March in Los Angeles', async () => {
    await openScreen(berlinA, 'Calendar');
    await berlinA.getByRole('button', { name: 'New event' }).click();
    const dialog = berlinA.getByRole('dialog');
    await dialog.getByLabel('Title').fill('Spring holiday');
    await dialog.getByRole('checkbox', { name: 'All day' }).check();
    await dialog.getByLabel('Starts').fill(`${year}-03-10`);
    await dialog.getByLabel('Ends').fill(`${year}-03-10`);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitForStatus(berlinA, /Synced/);

    await syncNow(losAngeles);
    await showMonth(losAngeles, year, 3);
    await eventsOn(losAngeles, `${year}-03-10`, 'Spring holiday').waitFor();
    expect(await eventsOn(losAngeles, `${year}-03-09`, 'Spring holiday').count()).toBe(0);
    expect(await eventsOn(losAngeles, `${year}-03-11`, 'Spring holiday').count()).toBe(0);
    await losAngeles.screenshot({ path: screenshotPath('all-day-los-angeles'), fullPage: true });
    expect(failures).toEqual([]);
  });
});
