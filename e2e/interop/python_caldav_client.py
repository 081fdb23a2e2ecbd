"""Drives calsync's CalDAV with Python's caldav library (Debian's python3-caldav), as a calendar
app would, and prints what it saw as JSON for the e2e test to judge.

  first <base> <user> <password> <ics-file>   discovery from /.well-known/caldav, calendars, a PUT,
                                              the object read back, a time-range search, a sync token
  since <collection-url> <user> <password> <token>   what changed since the token
"""
import datetime
import json
import sys

import caldav


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


if __name__ == "__main__":
    mode, *args = sys.argv[1:]
    print(json.dumps(first(*args) if mode == "first" else since(*args)))
