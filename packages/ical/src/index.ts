// @calsync/ical: iCalendar (RFC 5545) for calsync records, both ways, browser-safe.
export { recordUidFor, overrideUidFor, alarmUidFor } from './uids.js';
export { vtimezoneOf, ianaZoneOf } from './zones.js';
export type { ObjectRecord, SkippedPart } from './object-types.js';
export type { EventObject, ParsedEventObject, ParsedEvent } from './event-object.js';
export type { TaskObject, ParsedTaskObject } from './task-object.js';
export type { ParsedAlarm } from './alarms.js';
export { parseCalendar, renderCalendar, NotICalendarError, type CalendarContent, type ParsedCalendar, type ParsedObject } from './calendar-object.js';
export { planEventObject, planTaskObject, type CurrentObject, type ObjectWrite } from './plan.js';
export { planImport, type ImportResult, type ImportTarget } from './import.js';
