import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cloneStored } from './clone.js';

/** Every object and array reachable from `value`, with the path to it. */
function containers(value: unknown, path = '$', out: Array<[string, object]> = [], seen = new Set<object>()): Array<[string, object]> {
  if (typeof value !== 'object' || value === null || seen.has(value)) return out;
  seen.add(value);
  out.push([path, value]);
  if (value instanceof Map) {
    let i = 0;
    for (const [k, v] of value) {
      containers(k, `${path}.key${i}`, out, seen);
      containers(v, `${path}.value${i++}`, out, seen);
    }
  } else if (value instanceof Set) {
    let i = 0;
    for (const v of value) containers(v, `${path}.item${i++}`, out, seen);
  }
  else for (const key of Object.keys(value)) containers((value as Record<string, unknown>)[key], `${path}.${key}`, out, seen);
  return out;
}

describe('cloneStored', () => {
  it('copies what structuredClone copies, equal and sharing no object with the original', () => {
    const anything = fc.anything({ withMap: true, withSet: true, withDate: true, withNullPrototype: true, withSparseArray: true, withBoxedValues: true, withTypedArray: true, withBigInt: true, maxDepth: 4 });
    fc.assert(
      fc.property(anything, (value) => {
        const copied = cloneStored(value);
        expect(copied).toStrictEqual(structuredClone(value));
        const originals = new Set(containers(value).map(([, o]) => o));
        for (const [path, o] of containers(copied)) expect(originals.has(o), `${path} is the original's object`).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('copies plain records, outbox items and metadata as they are', () => {
    const write = {
      putRecords: [{ type: 'events', uid: 'e1', version: '7', fields: { title: 'Dentist', exdates: ['2026-12-01T09:00:00.000Z'], allDay: false, location: null } }],
      putOutbox: [{ seq: 3, type: 'events', uid: 'e1', op: 'upsert', baseVersion: null, fields: { title: 'Dentist' }, state: 'pending', attempts: 0, sent: null, waitForPull: false, lastError: null }],
      putMeta: { cursor: 'abc', nextSeq: 4, user: { id: 1, phone: '+15550000001' }, flag: true },
    };
    const copied = cloneStored(write);
    expect(copied).toStrictEqual(write);
    expect(copied.putRecords[0]!.fields).not.toBe(write.putRecords[0]!.fields);
  });

  it('keeps an own "__proto__" key as data, as structuredClone does', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copied = cloneStored(value);
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.keys(copied)).toEqual(['__proto__', 'a']);
    expect(copied).toStrictEqual(structuredClone(value));
  });

  it('throws where structuredClone throws: a function or a symbol anywhere in the value', () => {
    for (const bad of [{ a: [1, { f: () => 1 }] }, [Symbol('s')], () => 1, { deep: { s: Symbol('t') } }]) {
      expect(() => structuredClone(bad)).toThrow();
      expect(() => cloneStored(bad)).toThrow();
    }
  });

  it('copies a cycle as structuredClone does (beyond its depth limit it hands the rest over)', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    const copied = cloneStored(a) as Record<string, unknown>;
    expect(copied.name).toBe('a');
    let node = copied;
    for (let i = 0; i < 200; i++) node = node.self as Record<string, unknown>;
    expect(node.name).toBe('a');
    expect(node).not.toBe(a);
  });
});
