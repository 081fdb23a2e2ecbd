"""Drives calsync's CalDAV with Python's caldav library (Debian's python3-caldav), as a calendar
app would, and prints what it saw as JSON for the e2e test to judge.

  first <base> <user> <password> <ics-file>   discovery from /.well-known/caldav, calendars, a PUT,
                                              the object read back, a time-range search, a sync token
  since <collection-url> <user> <password> <token>   what changed since the token
  move <object-url> <user> <password> <hours>  every occurrence of the series that many hours later,
                                              as a calendar app writes it: DTSTART, DTEND, EXDATE and
                                              each override's RECURRENCE-ID shifted (icalendar)
"""
import datetime
import json
import sys

import caldav
import icalendar


def client(url, user, password):
    return caldav.DAVClient(url=url, username=user, password=password)


def first(base, user, password, ics_path):
    with open(ics_path, encoding="utf-8") as f:
        ics = f.read()
    principal = client(base + "/.well-known/caldav", user, password).principal()
    calendars = principal.calendars()
    listed = [{"name": c.get_properties([caldav.dav.DisplayName()]).get("{DAV:}displayname"), "url": str(c.url)} for c in calendars]
    home = next(c for c in calendars if c.get_properties([caldav.dav.DisplayName()]).get("{DAV:}displayname") == "Personal")
    saved = home.save_event(ics)
    read_back = home.event_by_url(saved.url)
    read_back.load()
    found = home.date_search(start=datetime.datetime(2026, 3, 30, tzinfo=datetime.timezone.utc), end=datetime.datetime(2026, 3, 31, tzinfo=datetime.timezone.utc))
    empty = home.date_search(start=datetime.datetime(2026, 3, 29, tzinfo=datetime.timezone.utc), end=datetime.datetime(2026, 3, 30, tzinfo=datetime.timezone.utc))
    synced = home.objects_by_sync_token(load_objects=True)
    return {
        "calendars": listed,
        "collection": str(home.url),
        "href": str(saved.url),
        "data": read_back.data,
        "search": [str(e.url) for e in found],
        "emptySearch": [str(e.url) for e in empty],
        "syncToken": synced.sync_token,
        "syncObjects": [str(o.url) for o in synced],
    }


def since(url, user, password, token):
    calendar = caldav.Calendar(client=client(url, user, password), url=url)
    changed = calendar.objects_by_sync_token(sync_token=token, load_objects=True)
    return {"syncToken": changed.sync_token, "objects": [{"url": str(o.url), "data": o.data} for o in changed]}


def shift(component, name, delta):
    value = component.decoded(name)
    del component[name]
    component.add(name, value + delta)


def move(url, user, password, hours):
    delta = datetime.timedelta(hours=int(hours))
    collection = url.rsplit("/", 1)[0] + "/"
    event = caldav.Calendar(client=client(collection, user, password), url=collection).event_by_url(url)
    event.load()
    calendar = icalendar.Calendar.from_ical(event.data)
    for component in calendar.walk("VEVENT"):
        if "RECURRENCE-ID" in component:
            shift(component, "RECURRENCE-ID", delta)
            continue
        shift(component, "DTSTART", delta)
        shift(component, "DTEND", delta)
        exdates = component.get("EXDATE")
        if exdates is not None:
            days = [d.dt + delta for lst in (exdates if isinstance(exdates, list) else [exdates]) for d in lst.dts]
            del component["EXDATE"]
            component.add("EXDATE", days)
    event.data = calendar.to_ical().decode("utf-8")
    event.save()
    event.load()
    return {"data": event.data}


if __name__ == "__main__":
    mode, *args = sys.argv[1:]
    print(json.dumps({"first": first, "since": since, "move": move}[mode](*args)))
