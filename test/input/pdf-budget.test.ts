// The PDF parser runs on a worker thread under a time and memory budget: a runaway document is stopped with a
// clear reason, an abort stops it at once, and the next document opens as usual (issue 19, D1, D14).
import { afterAll, describe, expect, it } from "vitest";
import { closePdfWorkers, InputError, openDocument } from "../../src/input/index.js";
import { hostilePdf } from "../helpers/hostile-pdf.js";
import { fixture } from "../helpers/paths.js";

afterAll(closePdfWorkers);

async function failure(promise: Promise<unknown>): Promise<InputError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputError);
  return error as InputError;
}

describe("PDF time budget", () => {
  it("stops a page whose content stream nests q 20,000 deep at --page-timeout, and the next document reads", async () => {
    // On the main thread this page ran for minutes and nothing (not even a signal) could stop it.
    const doc = await openDocument(hostilePdf("deepq", 20000), { name: "deepq.pdf", pageTimeoutMs: 1500 });
    const started = performance.now();
    const error = await failure(doc.textContent(1));
    const seconds = (performance.now() - started) / 1000;
    expect(error.code).toBe("TIMEOUT");
    expect(error.path).toBe("deepq.pdf");
    expect(error.message).toMatch(/page 1 took longer than the 1.5 s budget \(--page-timeout\)/);
    expect(seconds).toBeLessThan(10);
    // every later step of the stopped document fails the same way, at once
    expect((await failure(doc.renderPage(1))).code).toBe("TIMEOUT");
    await doc.close();
    const good = await openDocument(fixture("multi_page.pdf"), { pageTimeoutMs: 60_000 });
    try {
      expect((await good.textContent(1))!.runs.length).toBeGreaterThan(20);
    } finally {
      await good.close();
    }
  });

  it("stops a runaway page within a second of an abort (Ctrl-C, SIGTERM)", async () => {
    const controller = new AbortController();
    const doc = await openDocument(hostilePdf("deepq", 20000), { name: "deepq.pdf", signal: controller.signal });
    const pending = failure(doc.renderPage(1, { dpi: 72 }));
    await new Promise((r) => setTimeout(r, 500));
    const aborted = performance.now();
    controller.abort();
    const error = await pending;
    expect(error.code).toBe("INTERRUPTED");
    expect(performance.now() - aborted).toBeLessThan(1000);
    await doc.close();
  });

  it("reads Form XObjects nested 2,000 deep to the bottom (they overflowed the main thread's stack)", async () => {
    const doc = await openDocument(hostilePdf("xobjchain", 2000), { name: "xobjchain.pdf" });
    try {
      const text = await doc.textContent(1);
      expect(text!.runs.map((r) => r.text)).toEqual(["Hello from a pathological PDF", "bottom"]);
      expect(text!.warnings).toBeUndefined();
    } finally {
      await doc.close();
    }
  });

  it("counts the pages a PDF holds, not the 2^31-1 it claims, and a loop in the page tree fails only that page", async () => {
    for (const kind of ["countlie", "countlie-mid"] as const) {
      const lie = await openDocument(hostilePdf(kind), { name: `${kind}.pdf`, pageTimeoutMs: 20_000 });
      try {
        expect(lie.pageCount).toBe(1);
        expect((await lie.textContent(1))!.runs[0]!.text).toBe("Hello from a pathological PDF");
      } finally {
        await lie.close();
      }
    }
    const cycle = await openDocument(hostilePdf("pagecycle"), { name: "pagecycle.pdf", pageTimeoutMs: 20_000 });
    try {
      expect(cycle.pageCount).toBe(2);
      expect((await cycle.textContent(1))!.runs.length).toBe(1);
      const error = await failure(cycle.textContent(2));
      expect(error.code).toBe("CORRUPT_PDF");
      expect(error.message).toMatch(/^page 2 cannot be read/);
    } finally {
      await cycle.close();
    }
  });
});
