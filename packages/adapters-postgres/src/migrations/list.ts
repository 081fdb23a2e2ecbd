// Every migration module, one line each, named `m<migration name>`. Kysely runs them in name order.
export * as m0001_core from './0001_core.js';
export * as m0002_auth from './0002_auth.js';
export * as m0003_reference_indexes from './0003_reference_indexes.js';
export * as m0004_event_series from './0004_event_series.js';
export * as m0005_ical_extras from './0005_ical_extras.js';
export * as m0006_version_index_bounded_reads from './0006_version_index_bounded_reads.js';
export * as m0007_retention from './0007_retention.js';
export * as m0008_sign_up_pending from './0008_sign_up_pending.js';
export * as m0009_sms_budget from './0009_sms_budget.js';
export * as m0010_reminder_scheduler from './0010_reminder_scheduler.js';
export * as m0011_receipt_fingerprint_bytes from './0011_receipt_fingerprint_bytes.js';
export * as m0012_dav_renders from './0012_dav_renders.js';
export * as m0013_reference_indexes_without_nulls from './0013_reference_indexes_without_nulls.js';
export * as m0014_events_reach_users_through_calendars from './0014_events_reach_users_through_calendars.js';
export * as m0015_event_departures from './0015_event_departures.js';
export * as m0016_series_splits from './0016_series_splits.js';
export * as m0017_overrides_in_series_calendar from './0017_overrides_in_series_calendar.js';
