import ICAL from 'ical.js';
import { ICAL_EXTRAS_MAX } from '@calsync/domain/records';

/**
 * The text of `component` without the properties the records hold (`modeled`) and without its
 * alarms (they are records of their own): what a calendar app sent that calsync keeps as it came
 * (attendees, categories, X- properties, its UID, SEQUENCE and DTSTAMP). Null when nothing is left.
 */
export function extrasOf(component: ICAL.Component, modeled: ReadonlySet<string>): string | null {
  const copy = cloneComponent(component);
  for (const prop of copy.getAllProperties().filter((p) => modeled.has(p.name.toUpperCase()))) copy.removeProperty(prop);
  copy.removeAllSubcomponents('valarm');
  if (copy.getAllProperties().length === 0 && copy.getAllSubcomponents().length === 0) return null;
  const text = copy.toString();
  // Longer than a record field holds: the largest properties (attachments first) go, so the record is still kept.
  if (text.length <= ICAL_EXTRAS_MAX) return text;
  const bySize = [...copy.getAllProperties()].sort((a, b) => b.toICALString().length - a.toICALString().length);
  for (const prop of bySize) {
    copy.removeProperty(prop);
    const shorter = copy.toString();
    if (shorter.length <= ICAL_EXTRAS_MAX) return shorter;
  }
  return null;
}

/** A deep copy of a component (ICAL.Component shares its jCal arrays with `toJSON()`'s answer). */
export function cloneComponent(component: ICAL.Component): ICAL.Component {
  return new ICAL.Component(structuredClone(component.toJSON()));
}

/** A component of `name` rebuilt from kept extras (a fresh one when there are none or they do not parse). */
export function componentFromExtras(extras: unknown, name: string): ICAL.Component {
  if (typeof extras === 'string' && extras.length > 0) {
    try {
      const component = new ICAL.Component(ICAL.parse(extras));
      if (component.name === name) return component;
    } catch {
      // kept text that no longer parses: start afresh
    }
  }
  return new ICAL.Component(name);
}

/** Sets a text property, or removes it when the value is empty. */
export function setText(component: ICAL.Component, name: string, value: unknown): void {
  component.removeAllProperties(name);
  if (typeof value === 'string' && value.length > 0) component.addPropertyWithValue(name, value);
}

/** The first value of a text property, or null. */
export function textOf(component: ICAL.Component, name: string): string | null {
  const value = component.getFirstPropertyValue(name);
  return typeof value === 'string' && value.length > 0 ? value : null;
}
