import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`), or CHROMIUM_PATH; playwright-core ships no browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where browser tests write what a person should look at (screenshots), under the test output folder. */
export const OUTPUT_DIR = fileURLToPath(new URL('../../test-results/browser/', import.meta.url));

/**
 * Headless Chromium without its background traffic (update checks, sync, field trials): the tests
 * talk to loopback only.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: apt-get install -y chromium, or set CHROMIUM_PATH`);
  mkdirSync(OUTPUT_DIR, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-gpu'],
  });
}

/** The path of a screenshot called `name` in the output folder. */
export function screenshotPath(name: string): string {
  return `${OUTPUT_DIR}${name}.png`;
}
