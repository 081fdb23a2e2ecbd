import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientOf, signIn, startInMemoryService, type InMemoryService } from '../test-support/index.js';

// client.feeds against the real routes (the in-memory service runs the real Fastify app with
// feeds): a calendar shared by several links stops being shared by all of them at once.

let service: InMemoryService;
beforeEach(async () => {
  service = await startInMemoryService({ interop: true });
});
afterEach(async () => {
  await service.close();
});

/** The status a subscription app gets for a feed URL. */
const statusOf = async (url: string): Promise<number> => (await service.fetch(url)).status;

describe('client.feeds.removeAll', () => {
  it("ends every feed of the calendar, so none of its URLs answers any more, and leaves other calendars' feeds alone", async () => {
    const sdk = await clientOf(service);
    await signIn(service, sdk, '+15550005001');
    const work = await sdk.calendars.put({ name: 'Work' });
    await sdk.sync();
    const personal = sdk.calendars.list().find((c) => c.name === 'Personal')!.uid;
    const first = await sdk.feeds.create(personal);
    const second = await sdk.feeds.create(personal);
    const other = await sdk.feeds.create(work);
    expect([await statusOf(first.url), await statusOf(second.url)]).toEqual([200, 200]);

    expect(await sdk.feeds.removeAll(personal)).toBe(2);
    expect([await statusOf(first.url), await statusOf(second.url), await statusOf(other.url)]).toEqual([404, 404, 200]);
    expect(await sdk.feeds.list()).toEqual([{ id: other.id, calendarUid: work, createdAt: other.createdAt }]);
    expect(await sdk.feeds.removeAll(personal)).toBe(0);
  });

  it('counts a feed another device ended meanwhile as ended, and fails on any other error', async () => {
    let endedElsewhere = false;
    const racing: typeof fetch = async (input, init) => {
      // Another device ends the feed just before this DELETE arrives: the server answers 404.
      if (init?.method === 'DELETE' && !endedElsewhere) {
        endedElsewhere = true;
        await service.fetch(input, init);
      }
      return service.fetch(input, init);
    };
    const sdk = await clientOf(service, { fetch: racing });
    await signIn(service, sdk, '+15550005002');
    await sdk.sync();
    const personal = sdk.calendars.list().find((c) => c.name === 'Personal')!.uid;
    const made = await sdk.feeds.create(personal);
    expect(await sdk.feeds.removeAll(personal)).toBe(1);
    expect(await statusOf(made.url)).toBe(404);

    const failing = await clientOf(service, { fetch: async (input, init) => (init?.method === 'DELETE' ? new Response('{"success":false,"error":{"code":"INTERNAL","message":"down"}}', { status: 500, headers: { 'content-type': 'application/json' } }) : service.fetch(input, init)) });
    await signIn(service, failing, '+15550005002');
    const kept = await failing.feeds.create(personal);
    await expect(failing.feeds.removeAll(personal)).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(await statusOf(kept.url)).toBe(200);
  });
});
