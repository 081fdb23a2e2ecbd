/// <reference lib="dom" />
// Time to interactive of the built web client on a cold load from the local server, in headless
// Chromium, at phone size (390 × 844) and desktop size (1280 × 800): navigation → the sign-in
// form usable; "Sign in" clicked → the calendar rendered; and a reload of the signed-in app → the
// calendar rendered again. Five (RUNS) fresh browser contexts per size (no HTTP cache, no service
// worker); prints each run and the median. Not a test (no threshold): run it with
// `npx -y pnpm@10.34.8 build:web && npx tsx --conditions=source browser/measure-load.ts`.
import { startAppServer } from './lib/app-server.js';
import { launchChromium } from './lib/chromium.js';

const RUNS = Number(process.env.RUNS ?? 5);
const SIZES = [
  { name: 'phone', viewport: { width: 390, height: 844 }, phone: true },
  { name: 'desktop', viewport: { width: 1280, height: 800 }, phone: false },
] as const;
const app = await startAppServer();
const browser = await launchChromium();
try {
  for (const size of SIZES) {
    const rows: { form: number; calendar: number; reload: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext({ viewport: size.viewport, ...(size.phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) });
      const page = await context.newPage();
      const phone = `+1555000${String(size.phone ? 2000 + i : 1000 + i)}`;
      let t = performance.now();
      await page.goto(app.appUrl, { waitUntil: 'commit' });
      const phoneField = page.getByLabel('Phone number');
      await phoneField.waitFor();
      await phoneField.fill(phone); // fill waits until the field is enabled and editable
      const form = performance.now() - t;

      const sent = app.gateway.requests.length;
      await page.getByRole('button', { name: 'Send code' }).click();
      await page.getByLabel('Code').waitFor();
      while (app.gateway.requests.length === sent) await new Promise((r) => setTimeout(r, 20));
      await page.getByLabel('Code').fill(app.gateway.lastCode(phone));
      t = performance.now();
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('.fc-view-harness .fc-daygrid-day').first().waitFor();
      await page.getByRole('button', { name: 'New event' }).waitFor();
      const calendar = performance.now() - t;

      t = performance.now();
      await page.reload({ waitUntil: 'commit' });
      await page.locator('.fc-view-harness .fc-daygrid-day').first().waitFor();
      const reload = performance.now() - t;
      rows.push({ form, calendar, reload });
      console.log(`${size.name} run ${i + 1}: sign-in form usable ${form.toFixed(0)} ms, sign-in → calendar ${calendar.toFixed(0)} ms, reload → calendar ${reload.toFixed(0)} ms`);
      await context.close();
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `${size.name} (${size.viewport.width}x${size.viewport.height}) median of ${RUNS}: sign-in form usable ${median(rows.map((r) => r.form)).toFixed(0)} ms, sign-in → calendar ${median(rows.map((r) => r.calendar)).toFixed(0)} ms, reload → calendar ${median(rows.map((r) => r.reload)).toFixed(0)} ms`,
    );
  }
} finally {
  await browser.close();
  await app.stop();
}
