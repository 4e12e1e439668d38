"use client";

import { useSyncExternalStore } from "react";

// A moment in the reader's own time zone and locale. The server does not know them: it renders UTC, and the
// browser re-renders in local time right after hydration (useSyncExternalStore's server snapshot), so hydration
// never mismatches.

const subscribe = () => () => {};

const format = (iso: string, timeZone?: string) =>
  new Intl.DateTimeFormat(timeZone ? "en" : undefined, {
    dateStyle: "medium",
    timeStyle: "short",
    ...(timeZone ? { timeZone } : {}),
  }).format(new Date(iso)) + (timeZone ? ` ${timeZone}` : "");

export function LocalTime({ at, className }: { at: Date | string; className?: string }) {
  const iso = typeof at === "string" ? at : at.toISOString();
  const text = useSyncExternalStore(
    subscribe,
    () => format(iso),
    () => format(iso, "UTC"),
  );
  return (
    <time dateTime={iso} className={className}>
      {text}
    </time>
  );
}
