/** A kept iCalendar text of one CalDAV object: what it was rendered from (`key`), and the text. */
export interface KeptRender {
  /** The root record's uid (one kept text per object). */
  readonly uid: string;
  /**
   * What the text was rendered from: the uids and versions of every row the render read and the
   * calendar's zone (a row's version moves with every change of it, from CalDAV or the sync API).
   * A reader uses the text only when its own key is the same.
   */
  readonly key: string;
  readonly text: string;
}

/**
 * Rendered iCalendar texts of CalDAV objects kept across processes, so that a freshly started
 * server answers a calendar app's first sync without rendering every object again. Only a cache:
 * a text whose key no longer matches the rows is ignored and replaced, and a lost one is rendered
 * again. The texts of objects that no longer live are removed by the maintenance job
 * (`RetentionStore`, kind `renders`). Guarantees (checked by `runRenderStoreContract` in testkit, for every adapter):
 * - one text per (user, root uid): keeping a new one replaces the old;
 * - every read, write and drop is scoped to the user.
 */
export interface RenderStore {
  /** The kept texts of the user's roots `uids` (those that have one), whatever their key. */
  readRenders(userId: number, uids: readonly string[]): Promise<KeptRender[]>;
  /** Keeps texts, replacing any kept under the same root uid. */
  keepRenders(userId: number, renders: readonly KeptRender[]): Promise<void>;
  /** Drops the texts of roots (a deleted object). */
  dropRenders(userId: number, uids: readonly string[]): Promise<void>;
}
