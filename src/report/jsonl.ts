// JSON Lines reporter: one event per line, for pipelines (jq, log shippers, CI annotations).
import type { RunEvent } from "../app/events.js";
import { formatError, type Reporter, type TextSink } from "./reporter.js";

/**
 * Writes every event as one JSON object per line to `events`; failures also go to `errors`
 * as the usual one-line message, so a person reading the job log still sees them.
 */
export function createJsonlReporter(events: TextSink, errors?: TextSink): Reporter {
  return {
    handle(event: RunEvent) {
      events.write(JSON.stringify({ ...event, time: new Date().toISOString() }) + "\n");
      if (errors && event.type === "document-failed") errors.write(formatError(event.source, event.message));
    },
    close() {},
  };
}
