// @vitest-environment happy-dom
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { clientOf, signIn, startInMemoryService, twoDevicesWithTask, type InMemoryService } from '@calsync/client/test-support';
import type { SyncClient } from '@calsync/client';
import { useEffect } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SyncProvider, useConflicts, useOccurrences, useOutbox, useRecord, useRecords, useSyncStatus } from './index.js';

let service: InMemoryService;
beforeEach(async () => {
  service = await startInMemoryService();
});
afterEach(async () => {
  cleanup();
  await service.close();
});

function Tasks({ watch }: { readonly watch?: string }) {
  const tasks = useRecords('tasks');
  const one = useRecord('tasks', watch);
  const status = useSyncStatus();
  const outbox = useOutbox();
  const { conflicts, dismiss } = useConflicts();
  const january = useOccurrences({ from: '2030-01-01T00:00:00Z', to: '2030-02-01T00:00:00Z', tz: 'UTC' });
  return (
    <div>
      <ul aria-label="tasks">{tasks.map((t) => <li key={t.uid}>{t.title}</li>)}</ul>
      <p>watched: {one?.title ?? 'none'}</p>
      <p>pending: {status.pending}, outbox: {outbox.pending.map((i) => `${i.op} ${i.uid}`).join(' ') || 'empty'}</p>
      <p>conflicts: {conflicts.map((c) => `${c.entityUid} ${c.mine}`).join(' ') || 'none'}</p>
      {conflicts.map((c) => <button key={c.conflictId} type="button" onClick={() => void dismiss(c.conflictId)}>Keep theirs</button>)}
      <p>occurrences: {january.occurrences.length}</p>
    </div>
  );
}

const mount = (client: SyncClient, watch?: string) => render(<SyncProvider client={client}><Tasks {...(watch ? { watch } : {})} /></SyncProvider>);

describe('@calsync/react hooks over a real client', () => {
  it('render local records, status, outbox and occurrences, and follow local writes and pulls', async () => {
    const a = await clientOf(service);
    const b = await clientOf(service);
    await signIn(service, a, '+15550001001');
    await signIn(service, b, '+15550001001');
    const uid = await a.tasks.put({ title: 'Plan' });
    mount(a, uid);
    expect(screen.getByRole('list', { name: 'tasks' }).textContent).toBe('Plan');
    expect(screen.getByText(/^pending:/).textContent).toBe(`pending: 1, outbox: upsert ${uid}`);
    expect(screen.getByText(/^watched:/).textContent).toBe('watched: Plan');
    await act(() => a.sync());
    expect(screen.getByText(/^pending:/).textContent).toBe('pending: 0, outbox: empty');

    // Another device's edit arrives by pull; a local write shows at once.
    await b.sync();
    await b.tasks.put({ uid, title: 'Plan, by b' });
    await b.sync();
    await act(() => a.sync());
    expect(screen.getByText(/^watched:/).textContent).toBe('watched: Plan, by b');
    await act(async () => {
      await a.tasks.put({ title: 'Second' });
    });
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual(expect.arrayContaining(['Plan, by b', 'Second']));

    const calendarUid = a.calendars.list()[0]!.uid;
    await act(async () => {
      await a.events.put({ calendarUid, title: 'Standup', startTime: '2030-01-07T09:00:00Z', endTime: '2030-01-07T09:15:00Z', rrule: 'FREQ=WEEKLY;COUNT=3' });
    });
    expect(screen.getByText(/^occurrences:/).textContent).toBe('occurrences: 3');
  });

  it('useConflicts lists a conflict another device made, with mine, and drops it once resolved', async () => {
    const { a, b, uid } = await twoDevicesWithTask(service, '+15550001002', 'Plan');
    mount(a);
    await a.tasks.put({ uid, title: 'by a' });
    await b.tasks.put({ uid, title: 'by b' });
    await act(() => a.sync());
    await b.sync(); // B's stale edit wins: A's version is the loser
    await act(() => a.sync());
    await waitFor(() => expect(screen.getByText(/^conflicts:/).textContent).toBe(`conflicts: ${uid} loser`));
    await act(async () => {
      screen.getByRole('button', { name: 'Keep theirs' }).click();
    });
    await waitFor(() => expect(screen.getByText(/^conflicts:/).textContent).toBe('conflicts: none'));
    expect(await a.conflicts.list()).toEqual([]);
  });

  it("the hooks' actions keep their identity across renders, so an effect that depends on them runs once", async () => {
    const { a, b, uid } = await twoDevicesWithTask(service, '+15550001004', 'Plan');
    let listings = 0;
    let retries = 0;
    function Screen() {
      const { conflicts, loaded, refresh } = useConflicts();
      const { pending, retry } = useOutbox();
      // As the web app's conflict screen does: list afresh when `refresh` changes.
      useEffect(() => {
        listings++;
        void refresh();
      }, [refresh]);
      useEffect(() => {
        retries++;
      }, [retry]);
      return <p>listed: {loaded ? conflicts.length : 'loading'}, pending: {pending.length}</p>;
    }
    render(<SyncProvider client={a}><Screen /></SyncProvider>);
    await waitFor(() => expect(screen.getByText(/^listed:/).textContent).toBe('listed: 0, pending: 0'));
    await a.tasks.put({ uid, title: 'by a' });
    await b.tasks.put({ uid, title: 'by b' });
    await act(() => a.sync());
    await b.sync();
    await act(() => a.sync());
    await waitFor(() => expect(screen.getByText(/^listed:/).textContent).toBe('listed: 1, pending: 0'));
    // A listing that a changed `refresh` set off would have set off another by now.
    await act(() => new Promise((resolve) => setTimeout(resolve, 200)));
    expect({ listings, retries }).toEqual({ listings: 1, retries: 1 });
  });

  it('useConflicts: two components of one client share one list (a badge and the screen agree); loaded after the first listing', async () => {
    const { a, b, uid } = await twoDevicesWithTask(service, '+15550001003', 'Plan');
    function Badge() {
      const { conflicts, loaded } = useConflicts();
      return <p>badge: {loaded ? conflicts.length : 'loading'}</p>;
    }
    render(<SyncProvider client={a}><Badge /><Tasks /></SyncProvider>);
    await waitFor(() => expect(screen.getByText(/^badge:/).textContent).toBe('badge: 0'));
    await a.tasks.put({ uid, title: 'by a' });
    await b.tasks.put({ uid, title: 'by b' });
    await act(() => a.sync());
    await b.sync();
    await act(() => a.sync());
    await waitFor(() => expect(screen.getByText(/^badge:/).textContent).toBe('badge: 1'));
    await act(async () => {
      screen.getByRole('button', { name: 'Keep theirs' }).click();
    });
    // Resolved in one component: gone from the other too.
    await waitFor(() => expect(screen.getByText(/^badge:/).textContent).toBe('badge: 0'));
  });
});
