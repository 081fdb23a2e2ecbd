import { startStandInSmsGateway, type StandInSmsGateway } from '@calsync/testkit';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, RealServerProcess } from './lib/server-process.js';

// calsync as an app team meets it: every package packed as for the registry, the tarballs
// installed with npm into an empty project outside the repository, a program compiled there with
// `tsc --strict` against the installed types and run in Node against the real server, and a
// service's own vitest over the domain with testkit's in-memory store. TypeScript, @types/node and
// vitest come from this repository's node_modules, so npm fetches only the packages' own
// dependencies (from its cache after the first run).

/** The packages an app installs for these programs; the others are packed (and measured) too. */
const INSTALLED = ['domain', 'wire', 'ical', 'client', 'testkit'];
const readme = (path: string, marker: string): string => {
  const text = readFileSync(join(REPO_ROOT, path), 'utf8');
  const block = new RegExp(`<!-- ${marker}:start -->\\s*\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${marker}:end -->`).exec(text);
  if (!block) throw new Error(`${path} has no ${marker} block`);
  return block[1]!;
};

/** Runs `node file` in the project; answers its code prompt with `code()`; resolves with its output. */
async function run(cwd: string, file: string, env: Record<string, string>, code?: () => string): Promise<string> {
  const child = spawn(process.execPath, [file], { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code) {
    while (!out.includes('Code from the SMS')) {
      if (child.exitCode !== null) throw new Error(`no prompt:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.stdin.end(`${code()}\n`);
  }
  expect(await exited, out).toBe(0);
  return out;
}

describe('outside the repository: packed packages in an empty npm project', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calsync-app-'));
  const packs = join(dir, 'packs');
  const app = join(dir, 'app');
  let gateway: StandInSmsGateway;
  let server: RealServerProcess;
  const sizes: Record<string, number> = {};

  beforeAll(async () => {
    mkdirSync(packs);
    const t0 = Date.now();
    // Each publishable package builds on pack (scripts/prepack.mjs) and ships dist/ only.
    execFileSync('npx', ['-y', 'pnpm@10.34.8', '-r', '--filter', './packages/*', '--filter', '!@calsync/web', 'pack', '--pack-destination', packs], { cwd: REPO_ROOT, stdio: 'pipe' });
    for (const file of readdirSync(packs)) sizes[file] = statSync(join(packs, file)).size;
    console.log(`packed sizes (bytes): ${JSON.stringify(sizes)} in ${Date.now() - t0} ms`);
    const t1 = Date.now();

    mkdirSync(join(app, 'src'), { recursive: true });
    const dependencies = Object.fromEntries(INSTALLED.map((name) => [`@calsync/${name}`, `file:${join(packs, `calsync-${name}-0.1.0.tgz`)}`]));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'an-app', private: true, type: 'module', dependencies }));
    // The registry is the one thing here outside the machine: a dropped connection (EIDLETIMEOUT,
    // seen once in CI) is tried again, up to three times in all, and the cache keeps what arrived.
    for (let attempt = 1; ; attempt++) {
      try {
        execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: app, stdio: 'pipe' });
        break;
      } catch (error) {
        if (attempt === 3) throw error;
        console.log(`npm install failed (attempt ${attempt}), trying again: ${String((error as { stderr?: unknown }).stderr ?? error).split('\n')[0]}`);
      }
    }
    symlinkSync(join(REPO_ROOT, 'node_modules', 'vitest'), join(app, 'node_modules', 'vitest'));
    console.log(`npm install: ${Date.now() - t1} ms`);

    gateway = await startStandInSmsGateway();
    server = new RealServerProcess({
      DATABASE_URL: 'pglite://memory',
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      OTP_RESEND_SECONDS: '0',
      SMS_GATEWAY_URL: gateway.url,
      SMS_GATEWAY_API_KEY: 'outside-the-repository-key-0123456789',
      SMS_GATEWAY_SENDER: 'Calsync',
    });
    await server.start();
  }, 300_000);

  afterAll(async () => {
    if (server?.running) await server.terminate();
    await gateway?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('packs every package with dist/, no sources, no tests, no test support, and installs the five', () => {
    expect(Object.keys(sizes).length).toBeGreaterThanOrEqual(10);
    for (const tarball of Object.keys(sizes)) {
      const files = execFileSync('tar', ['tzf', join(packs, tarball)], { encoding: 'utf8' }).split('\n').filter(Boolean);
      expect(files.filter((f) => /\.test\.|\/src\/|\/test-support\/|\.map$/.test(f)), tarball).toEqual([]);
      expect(files, tarball).toEqual(expect.arrayContaining(['package/package.json', 'package/dist/index.js', 'package/dist/index.d.ts']));
      expect(files, tarball).toContain('package/README.md');
      const manifest = JSON.parse(execFileSync('tar', ['xzf', join(packs, tarball), '-O', 'package/package.json'], { encoding: 'utf8' })) as Record<string, unknown>;
      expect(manifest, tarball).toMatchObject({ license: 'MIT', repository: expect.objectContaining({ url: expect.any(String) }) });
      expect(JSON.stringify(manifest.exports), tarball).not.toMatch(/source|workspace:/);
      expect(JSON.stringify(manifest.dependencies ?? {}), tarball).not.toContain('workspace:');
    }
  });

  it('compiles a program with tsc --strict against the installed types: typed fields, and `titel` / `title: 42` refused', () => {
    cpSync(join(REPO_ROOT, 'e2e', 'outside', 'two-devices.ts'), join(app, 'src', 'two-devices.ts'));
    writeFileSync(join(app, 'src', 'example.ts'), readme('README.md', 'app-example'));
    for (const pkg of ['domain', 'wire', 'testkit', 'ical']) writeFileSync(join(app, 'src', `${pkg}-readme.ts`), readme(`packages/${pkg}/README.md`, 'readme-example'));
    cpSync(join(REPO_ROOT, 'e2e', 'outside', 'embed.spec.ts'), join(app, 'src', 'embed.test.ts'));
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, lib: ['ES2023', 'DOM'],
        outDir: 'out', rootDir: 'src', skipLibCheck: true, types: ['node'], typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
      },
      include: ['src'],
    }));
    // The same two misuses without `@ts-expect-error`: tsc still emits, and they are its only errors
    // (an unused `@ts-expect-error` in the other files would be an error too).
    writeFileSync(join(app, 'src', 'misuse.ts'), [
      "import { createSyncClient, MemoryStore } from '@calsync/client';",
      "const c = createSyncClient({ baseUrl: '', store: new MemoryStore(), device: { platform: 'node', name: 'x' } });",
      "export const misuses = (): unknown[] => [c.events.put({ titel: 'x' }), c.events.put({ title: 42 })];",
    ].join('\n'));
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const errors = spawnSyncText(process.execPath, [tsc, '-p', 'tsconfig.json'], app).trim().split('\n').filter((l) => l.includes('error TS'));
    expect(errors).toEqual([expect.stringMatching(/^src\/misuse\.ts.*'titel' does not exist/), expect.stringMatching(/^src\/misuse\.ts.*Type 'number' is not assignable to type 'string'/)]);
  });

  it('runs the README "Use it in your app" example in Node 20 against the real server', async () => {
    expect(readme('README.md', 'app-example')).toBe(readme('packages/client/README.md', 'readme-example'));
    expect(readme('README.md', 'app-example').trim().split('\n').length).toBeLessThanOrEqual(22);
    const phone = '+15550100201';
    const out = await run(app, 'out/example.js', { CALSYNC_URL: server.baseUrl, CALSYNC_PHONE: phone }, () => gateway.lastCode(phone));
    expect(out).toContain('Standup 4 0');
  });

  it('runs the domain, wire, testkit and ical README examples as written', async () => {
    expect(await run(app, 'out/domain-readme.js', {})).toContain('2030-01-28');
    expect(await run(app, 'out/wire-readme.js', {})).toMatch(/true\s+false/);
    expect(await run(app, 'out/testkit-readme.js', {})).toContain("[ 'Work' ] false");
    expect(await run(app, 'out/ical-readme.js', {})).toMatch(/2026-03-02T08:00:00\.000Z Europe\/Berlin FREQ=WEEKLY;BYDAY=MO[\s\S]*VJOURNAL[\s\S]*'create events'[\s\S]*1\s+true/);
  });

  it('two devices: typed reads, a conflict, a restore and an occurrence edit, over HTTP', async () => {
    const phone = '+15550100202';
    const out = await run(app, 'out/two-devices.js', { CALSYNC_URL: server.baseUrl, CALSYNC_PHONE: phone }, () => gateway.lastCode(phone));
    const result = JSON.parse(/\{"seenOnB".*\}/.exec(out)![0]) as Record<string, unknown>;
    expect(result).toMatchObject({
      seenOnB: 'Review',
      afterConflict: { a: 'Review (B)', b: 'Review (B)' },
      conflict: { entityType: 'EVENT', loserTitle: 'Review (A)' },
      afterRestore: { a: 'Review (A)', b: 'Review (A)' },
      occurrences: 4,
      locations: [null, 'Garden', null, null],
      pending: [0, 0],
    });
    // Both devices heard of the conflict within their next round.
    expect(result.heard).toEqual({ a: 1, b: 1 });
  });

  it("an embedding service's own vitest runs the domain over testkit's in-memory store", () => {
    const vitest = join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
    const out = spawnSyncText(process.execPath, [vitest, 'run', '--root', app, 'src/embed.test.ts'], app);
    expect(out).toMatch(/1 passed/);
  });
});

/** Runs a command to its end; its stdout and stderr together. */
function spawnSyncText(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
}
