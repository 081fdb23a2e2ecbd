import { hostname } from 'node:os';
import { link, open, readFile, rename, unlink } from 'node:fs/promises';

/** What a lock file says about its owner. */
interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
}

/** The second process on a PGlite folder is refused with this error (start-up prints its message). */
export class FolderInUseError extends Error {
  constructor(
    readonly folder: string,
    readonly lockFile: string,
    readonly ownerPid: number,
  ) {
    super(
      `the PGlite folder ${folder} is in use by process ${ownerPid} (lock file ${lockFile}); PGlite allows one process per folder: ` +
        'stop that process, give this one another folder, or use PostgreSQL (postgres://…) for several processes',
    );
    this.name = 'FolderInUseError';
  }
}

/** A held lock; `release` removes the file if it is still ours. */
export interface FolderLock {
  readonly file: string;
  release(): Promise<void>;
}

function parseOwner(text: string): LockOwner | null {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    return typeof o.pid === 'number' && Number.isSafeInteger(o.pid) && o.pid > 0 && typeof o.host === 'string' ? (o as LockOwner) : null;
  } catch {
    return null;
  }
}

/** True while process `pid` exists on this machine (EPERM: it exists, owned by someone else). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock whose owner is gone: written on this host by a process that no longer runs (or unreadable). */
function isStale(owner: LockOwner | null): boolean {
  return owner === null || (owner.host === hostname() && owner.pid !== process.pid && !isAlive(owner.pid));
}

/**
 * Takes the one-process lock of a PGlite folder: `<folder>.lock` beside it, created atomically,
 * holding the owner's pid. Two PGlite engines on one folder both acknowledge writes and then lose
 * them, so a second process is refused (`FolderInUseError`). A lock left by a killed process (its
 * pid no longer runs on this host) is taken over: it is first renamed away atomically, so of two
 * processes racing for a stale lock only one wins, and a live owner's lock renamed by mistake is put back.
 */
export async function lockPGliteFolder(folder: string): Promise<FolderLock> {
  const file = `${folder}.lock`;
  const me: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const text = `${JSON.stringify(me)}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    // Written in full under a private name, then linked into place: link fails if the lock exists,
    // and nobody ever sees a lock file without its owner in it.
    const draft = `${file}.${process.pid}.draft`;
    const handle = await open(draft, 'w');
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(draft, file);
      await unlink(draft);
      return {
        file,
        async release() {
          const current = await readFile(file, 'utf8').catch(() => null);
          if (current === text) await unlink(file).catch(() => {});
        },
      };
    } catch (error) {
      await unlink(draft).catch(() => {});
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = parseOwner(await readFile(file, 'utf8').catch(() => ''));
    if (owner !== null && owner.pid === process.pid && owner.host === me.host) {
      throw new FolderInUseError(folder, file, owner.pid);
    }
    if (!isStale(owner)) throw new FolderInUseError(folder, file, owner!.pid);
    // Stale: move it aside (only one racer can), check what we moved, then try to create ours again.
    const aside = `${file}.stale-${process.pid}-${attempt}`;
    try {
      await rename(file, aside);
    } catch {
      continue;
    }
    const moved = parseOwner(await readFile(aside, 'utf8').catch(() => ''));
    if (!isStale(moved)) {
      await rename(aside, file).catch(() => {});
      throw new FolderInUseError(folder, file, moved!.pid);
    }
    await unlink(aside).catch(() => {});
  }
  throw new Error(`could not take the lock ${file} of the PGlite folder ${folder}`);
}
