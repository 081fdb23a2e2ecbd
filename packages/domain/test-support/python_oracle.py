"""Occurrences of iCalendar files by Python's icalendar + recurring_ical_events: the second,
independent RFC 5545 oracle of the recurrence property tests (Debian packages python3-icalendar
and python3-recurring-ical-events).

Reads a JSON list of cases from stdin, each {"ics": text, "from": ISO instant, "to": ISO instant,
"zone": IANA name or null}, and writes a JSON list: per case, the starts of the occurrences between
from and to, in order, as ISO instants in UTC with milliseconds (timed) or YYYY-MM-DD (all-day).

A timed occurrence's wall-clock time is placed in its zone by RFC 5545 section 3.3.5 with Python's
zoneinfo (fold=0: a skipped time takes the offset before the gap, a repeated time the first of the
two), not by the VTIMEZONE reading of recurring_ical_events, which takes the second of two."""
import datetime
import json
import sys

import zoneinfo

import icalendar
import recurring_ical_events


def start_text(value, zone):
    if isinstance(value, datetime.datetime) and zone is not None and value.tzinfo is not None:
        value = value.replace(tzinfo=None).replace(tzinfo=zoneinfo.ZoneInfo(zone), fold=0)
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return value.astimezone(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.000Z')
    return value.isoformat()


def sort_key(value):
    if isinstance(value, datetime.datetime):
        return value.timestamp()
    return datetime.datetime.combine(value, datetime.time(), datetime.timezone.utc).timestamp()


def parse_instant(text):
    return datetime.datetime.fromisoformat(text.replace('Z', '+00:00'))


def main():
    out = []
    for case in json.load(sys.stdin):
        calendar = icalendar.Calendar.from_ical(case['ics'])
        if case.get('zone') is not None:
            # icalendar gives DTSTART a pytz zone fixed at DTSTART's offset, and dateutil compares
            # the rule's UTC UNTIL with occurrences still at that offset: in summer, an occurrence
            # of a January-started series up to an hour before UNTIL was dropped. A zoneinfo zone
            # keeps each occurrence's own offset, as RFC 5545 compares them.
            for event in calendar.walk('VEVENT'):
                start = event['DTSTART'].dt
                if isinstance(start, datetime.datetime) and start.tzinfo is not None:
                    event['DTSTART'].dt = start.replace(tzinfo=zoneinfo.ZoneInfo(case['zone']))
        events = recurring_ical_events.of(calendar).between(parse_instant(case['from']), parse_instant(case['to']))
        starts = sorted((e['DTSTART'].dt for e in events), key=sort_key)
        out.append([start_text(s, case.get('zone')) for s in starts])
    json.dump(out, sys.stdout)


main()
