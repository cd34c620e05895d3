// Output naming: NAME.md / NAME.json under the output folder, mirroring the input tree.
import path from "node:path";
/** The files a document is written as. */
export type OutputFormat = "md" | "json";

/**
 * Picks an output stem for each document so that none collide: report.pdf and report.png
 * in one folder both want "report", so both keep their extension ("report.pdf", "report.png").
 */
export function assignOutputStems(relatives: string[]): string[] {
  const stem = (r: string) => {
    const p = path.parse(r);
    return path.join(p.dir, p.name);
  };
  const counts = new Map<string, number>();
  for (const r of relatives) counts.set(stem(r).toLowerCase(), (counts.get(stem(r).toLowerCase()) ?? 0) + 1);
  const used = new Set<string>();
  return relatives.map((r) => {
    let candidate = (counts.get(stem(r).toLowerCase()) ?? 0) > 1 ? r : stem(r);
    for (let n = 2; used.has(candidate.toLowerCase()); n++) candidate = `${r}-${n}`;
    used.add(candidate.toLowerCase());
    return candidate;
  });
}

/** Output file for a stem chosen by assignOutputStems. */
export function outputFileFor(outputDir: string, stem: string, format: OutputFormat): string {
  return path.join(outputDir, `${stem}.${format}`);
}
