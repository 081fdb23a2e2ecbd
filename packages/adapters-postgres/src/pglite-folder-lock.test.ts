import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderInUseError, lockPGliteFolder } from './pglite-folder-lock.js';

const dirs: string[] = [];
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'calsync-lock-'));
  dirs.push(dir);
  return join(dir, 'pglite');
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const ownerText = (pid: number) => `${JSON.stringify({ pid, host: hostname(), since: '2026-01-01T00:00:00.000Z' })}\n`;

describe('lockPGliteFolder', () => {
  it('lets one holder in, refuses a second one naming the owner, and is free again after release', async () => {
    const f = folder();
    const lock = await lockPGliteFolder(f);
    expect(JSON.parse(readFileSync(`${f}.lock`, 'utf8')).pid).toBe(process.pid);
    await expect(lockPGliteFolder(f)).rejects.toThrow(FolderInUseError);
    await expect(lockPGliteFolder(f)).rejects.toThrow(`in use by process ${process.pid}`);
    await lock.release();
    expect(existsSync(`${f}.lock`)).toBe(false);
    await (await lockPGliteFolder(f)).release();
  });

  it('refuses while another live process owns the lock', async () => {
    const f = folder();
    const other = spawn('sleep', ['30']);
    try {
      writeFileSync(`${f}.lock`, ownerText(other.pid!));
      const error = await lockPGliteFolder(f).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FolderInUseError);
      expect((error as FolderInUseError).ownerPid).toBe(other.pid);
      expect(readFileSync(`${f}.lock`, 'utf8')).toBe(ownerText(other.pid!));
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('takes over a stale lock (its process was killed) and an unreadable one', async () => {
    const f = folder();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(`${f}.lock`, ownerText(Number(dead)));
    const lock = await lockPGliteFolder(f);
    expect(JSON.parse(readFileSync(`${f}.lock`, 'utf8')).pid).toBe(process.pid);
    await lock.release();
    writeFileSync(`${f}.lock`, 'half-written');
    await (await lockPGliteFolder(f)).release();
  });

  it('release leaves a lock that is no longer its own', async () => {
    const f = folder();
    const lock = await lockPGliteFolder(f);
    writeFileSync(`${f}.lock`, ownerText(1));
    await lock.release();
    expect(readFileSync(`${f}.lock`, 'utf8')).toBe(ownerText(1));
  });
});
