/// <reference lib="dom" />
// (the functions passed to page.evaluate run in the page, with the DOM)
import type { Locator, Page } from 'playwright-core';
import type { StandInSmsGateway } from '@calsync/testkit';

/** The sync indicator (the one `role="status"` region the app keeps in its top bar). */
export function syncStatus(page: Page): Locator {
  return page.getByRole('status', { name: 'Sync status' });
}

/** Waits until the sync indicator's text matches `pattern`. */
export async function waitForStatus(page: Page, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
  await page.waitForFunction(
    ([source, flags]) => {
      const el = document.querySelector('[role="status"][aria-label="Sync status"]');
      return el !== null && new RegExp(source as string, flags as string).test(el.textContent ?? '');
    },
    [pattern.source, pattern.flags],
    { timeout: timeoutMs },
  );
}

/** Signs in on the sign-in screen with `phone`, reading the code from the stand-in SMS gateway. */
export async function signInWithPhone(page: Page, appUrl: string, gateway: StandInSmsGateway, phone: string): Promise<void> {
  await page.goto(appUrl);
  const sent = gateway.requests.length;
  await page.getByLabel('Phone number').fill(phone);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code').waitFor();
  const deadline = Date.now() + 10_000;
  while (gateway.requests.length === sent && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await page.getByLabel('Code').fill(gateway.lastCode(phone));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await syncStatus(page).waitFor();
  await waitForStatus(page, /Synced/);
}

/**
 * Makes the top bar's links and actions (Sync now, Sign out) visible: on a phone they sit behind
 * the "Menu" button, which this opens; on a wide screen they are always shown.
 */
export async function openMenu(page: Page): Promise<void> {
  // The signed-in top bar first: right after a reload the app is still opening its store, and a
  // Menu button not yet drawn is not visible, so the menu stayed shut (a CI run under load).
  await page.locator('header.top-bar').waitFor();
  const menu = page.getByRole('button', { name: 'Menu', exact: true });
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
}

/** Asks this tab to sync now (the "Sync now" button), then waits for "Synced". */
export async function syncNow(page: Page): Promise<void> {
  await openMenu(page);
  await page.getByRole('button', { name: 'Sync now' }).click();
  await closeMenu(page);
  await waitForStatus(page, /Synced/);
}

/** Goes to a screen through the top navigation. */
export async function openScreen(page: Page, name: ScreenName): Promise<void> {
  await openMenu(page);
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name, exact: true }).click();
}

/** Closes the phone menu if it is open. */
export async function closeMenu(page: Page): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu', exact: true });
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) === 'true') await menu.click();
}

/** The screens of the top navigation. */
export type ScreenName = 'Calendar' | 'Tasks' | 'Reminders' | 'Calendars' | 'Conflicts' | 'Devices';
export const SCREENS: readonly ScreenName[] = ['Calendar', 'Tasks', 'Reminders', 'Calendars', 'Conflicts', 'Devices'];

/** Signs out through the top bar (behind "Menu" on a phone). */
export async function signOut(page: Page): Promise<void> {
  await openMenu(page);
  await page.getByRole('button', { name: 'Sign out' }).click();
}

/** Creates an event through the "New event" dialog; `repeats` picks a choice of the Repeats list. */
export async function createEvent(page: Page, title: string, repeats?: string): Promise<void> {
  await openScreen(page, 'Calendar');
  await page.getByRole('button', { name: 'New event' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Title').fill(title);
  if (repeats) await dialog.getByLabel('Repeats').selectOption({ label: repeats });
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'detached' });
}

/** The first shown occurrence of the event titled `title` in the calendar view. */
export function eventInCalendar(page: Page, title: string): Locator {
  return page.locator('.fc-event', { hasText: title }).first();
}

/**
 * Opens the first occurrence of `title`, changes its title to `newTitle` and saves; for an
 * occurrence of a series, `scope` names the choice ("All events" by default: the series itself).
 */
export async function renameEvent(page: Page, title: string, newTitle: string, scope = 'All events'): Promise<void> {
  await openScreen(page, 'Calendar');
  await eventInCalendar(page, title).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Title').fill(newTitle);
  const choice = dialog.getByRole('radio', { name: scope, exact: true });
  if ((await choice.count()) > 0) await choice.check();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'detached' });
}

/** The keys held in every object store of every IndexedDB database of the page's origin, by "database/store". */
export async function indexedDbKeys(page: Page): Promise<Record<string, string[]>> {
  return page.evaluate(async () => {
    const out: Record<string, string[]> = {};
    for (const info of await indexedDB.databases()) {
      if (!info.name) continue;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open(info.name as string);
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        const keys = await new Promise<IDBValidKey[]>((resolve, reject) => {
          const req = db.transaction(store, 'readonly').objectStore(store).getAllKeys();
          req.onsuccess = () => resolve(req.result);
          req.onerror = () => reject(req.error);
        });
        out[`${info.name}/${store}`] = keys.map((k) => JSON.stringify(k));
      }
      db.close();
    }
    return out;
  });
}
