import type { Generated } from 'kysely';
import { describe, expectTypeOf, it } from 'vitest';
import type { CalendarsTable, EventsTable, RecordTableBase, RemindersTable, TasksTable } from './schema.js';

// The record-table row types are computed from FIELD_TABLES; these checks (run by the type check)
// pin the mapping of each field shape to its column type, so a change to the mapping is seen.
type Timestamp = NonNullable<TasksTable['due_at']>;

describe('record-table types derived from the field tables', () => {
  it('map each field shape to its column type', () => {
    expectTypeOf<CalendarsTable['name']>().toEqualTypeOf<string>();
    expectTypeOf<CalendarsTable['color']>().toEqualTypeOf<string | null>();
    expectTypeOf<CalendarsTable['is_default']>().toEqualTypeOf<Generated<boolean>>();
    expectTypeOf<EventsTable['calendar_uid']>().toEqualTypeOf<string>();
    expectTypeOf<EventsTable['all_day']>().toEqualTypeOf<Generated<boolean>>();
    expectTypeOf<EventsTable['end_time']>().toEqualTypeOf<string>();
    expectTypeOf<EventsTable['original_start_time']>().toEqualTypeOf<string | null>();
    expectTypeOf<EventsTable['sync_status']>().toEqualTypeOf<Generated<string>>();
    expectTypeOf<TasksTable['due_at']>().toEqualTypeOf<Timestamp | null>();
    expectTypeOf<TasksTable['priority']>().toEqualTypeOf<number | null>();
    expectTypeOf<TasksTable['parent_task_uid']>().toEqualTypeOf<string | null>();
    expectTypeOf<RemindersTable['minutes_before']>().toEqualTypeOf<number | null>();
    expectTypeOf<RemindersTable['remind_at']>().toEqualTypeOf<Timestamp | null>();
  });

  it('hold exactly the stamps and the field columns', () => {
    type FieldColumns<T> = Exclude<keyof T, keyof RecordTableBase>;
    expectTypeOf<FieldColumns<CalendarsTable>>().toEqualTypeOf<'name' | 'color' | 'timezone' | 'is_default'>();
    expectTypeOf<FieldColumns<RemindersTable>>().toEqualTypeOf<'event_uid' | 'task_uid' | 'minutes_before' | 'remind_at' | 'ical_extras'>();
    expectTypeOf<FieldColumns<TasksTable>>().toEqualTypeOf<'title' | 'notes' | 'due_at' | 'completed' | 'completed_at' | 'priority' | 'parent_task_uid' | 'ical_extras'>();
  });
});
