import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The Python that has icalendar and recurring_ical_events (Debian's, not a pyenv shim), or null when none does. */
export function pythonWithOracle(): string | null {
  for (const python of [process.env.ORACLE_PYTHON, '/usr/bin/python3', 'python3']) {
    if (!python || (python.startsWith('/') && !existsSync(python))) continue;
    try {
      execFileSync(python, ['-c', 'import icalendar, recurring_ical_events'], { stdio: 'ignore' });
      return python;
    } catch {
      // not this one
    }
  }
  return null;
}

/** One question to the Python oracle: a VCALENDAR and a window. */
export interface PythonCase {
  readonly ics: string;
  readonly from: string;
  readonly to: string;
  /** The IANA zone the wall-clock times are placed in (null for UTC and all-day). */
  readonly zone: string | null;
}

/** Runs the Python oracle (`python_oracle.py`) once over every case: per case, the occurrence starts in its window. */
export function pythonStarts(python: string, cases: readonly PythonCase[]): string[][] {
  const script = fileURLToPath(new URL('./python_oracle.py', import.meta.url));
  const out = execFileSync(python, [script], { input: JSON.stringify(cases), maxBuffer: 256 * 1024 * 1024 });
  return JSON.parse(out.toString()) as string[][];
}
