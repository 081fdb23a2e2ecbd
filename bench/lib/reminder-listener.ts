/**
 * The devices' ears for the many-devices workload's reminders, in a process of its own: it opens one
 * notification stream per token and stamps each `reminder` event the moment it is parsed. The load
 * generator (100 SDK devices in one Node process) keeps its event loop busy for whole seconds at a
 * time; a stream read there is stamped when that loop gets round to it, which measures the load
 * generator, not the server. A real device is its own process: so is this listener.
 *
 * Protocol over the IPC channel (`fork`): parent sends `{ open: { url, tokens } }`, child answers
 * `{ opened: n }`; parent sends `{ collect: true }`, child answers `{ heard, loopDelay }` and exits.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openEventStream, type OpenedStream } from '@calsync/testkit';
import { forkModule, isForkedModule } from './forked.js';

/** One reminder event as heard: which, when it was due, when it arrived (epoch ms). */
export interface HeardReminder {
  readonly reminderUid: string;
  readonly dueAt: string;
  readonly heardAt: number;
}

/** Event-loop delay of a process over a run, in ms. */
export interface LoopDelay {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

type ToChild = { open: { url: string; tokens: string[] } } | { collect: true };
type FromChild = { opened: number } | { heard: HeardReminder[]; loopDelay: LoopDelay };

/** The listener process, seen from the load generator. */
export interface ReminderListener {
  /** Everything heard so far; the listener process exits. */
  collect(): Promise<{ heard: HeardReminder[]; loopDelay: LoopDelay }>;
}

/** The delay histogram's figures in ms (it records ns). */
export function loopDelayOf(h: ReturnType<typeof monitorEventLoopDelay>): LoopDelay {
  return { p50Ms: h.percentile(50) / 1e6, p99Ms: h.percentile(99) / 1e6, maxMs: h.max / 1e6 };
}

/** Starts the listener process and opens a stream per token at `url`; resolves once all are open. */
export async function startReminderListener(url: string, tokens: readonly string[]): Promise<ReminderListener> {
  const child = forkModule<ToChild, FromChild>(import.meta.url, 'reminder listener');
  const answer = await child.ask({ open: { url, tokens: [...tokens] } });
  if (!('opened' in answer) || answer.opened !== tokens.length) throw new Error(`reminder listener opened ${JSON.stringify(answer)} of ${tokens.length} streams`);
  return {
    async collect() {
      const r = await child.ask({ collect: true });
      if (!('heard' in r)) throw new Error('reminder listener answered out of turn');
      return r;
    },
  };
}

/** Reads a stream's `reminder` events until `stopped()`, each with the time it was heard. */
export async function readReminders(stream: OpenedStream, stopped: () => boolean, onHeard: (due: { reminderUid: string; dueAt: string }, heardAt: number) => void): Promise<void> {
  while (!stopped()) {
    const item = await stream.nextEvent(1000).catch(() => null);
    if (item?.event !== 'reminder') continue;
    const heardAt = Date.now();
    const due = JSON.parse(item.data) as { reminderUid: string; dueAt: string };
    onHeard({ reminderUid: due.reminderUid, dueAt: due.dueAt }, heardAt);
  }
}

/** The child's side. */
function listen(): void {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const heard: HeardReminder[] = [];
  const streams: OpenedStream[] = [];
  const reads: Promise<void>[] = [];
  let stop = false;
  process.on('message', (m: ToChild) => {
    void (async () => {
      if ('open' in m) {
        for (const token of m.open.tokens) {
          const stream = await openEventStream(m.open.url, { authorization: `Bearer ${token}` });
          if (stream.status !== 200) throw new Error(`stream refused: ${stream.status}`);
          streams.push(stream);
          reads.push(readReminders(stream, () => stop, (due, heardAt) => heard.push({ ...due, heardAt })));
        }
        delay.enable();
        process.send!({ opened: streams.length } satisfies FromChild);
      } else {
        delay.disable();
        stop = true;
        for (const s of streams) s.close();
        await Promise.all(reads);
        process.send!({ heard, loopDelay: loopDelayOf(delay) } satisfies FromChild, () => process.exit(0));
      }
    })();
  });
}

if (isForkedModule(import.meta.url)) listen();
