// Helpers the bench scripts share: command-line flags, PDF discovery, a child's memory and its --jsonl events, the
// probes' parse of a folder of images and Tesseract beside it.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** `--name` flags and `--name value` options over an argv (without node and the script). */
export function cliArgs(argv = process.argv.slice(2)) {
  const flag = (name) => argv.includes(name);
  const option = (name, fallback) => {
    const i = argv.indexOf(name);
    return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback;
  };
  const list = (s) => s.split(",").filter(Boolean).map(Number);
  return { argv, flag, option, list };
}

/**
 * A probe's command line, `build|run DIR [options]`: its command, DIR resolved, and cliArgs' readers of its options;
 * given anything else it prints `usage: USAGE` and exits 2.
 */
export function probeArgs(usage) {
  const args = cliArgs();
  const [command, dirArg] = args.argv;
  if (!["build", "run"].includes(command) || !dirArg) {
    process.stderr.write(`usage: ${usage}\n`);
    process.exit(2);
  }
  return { ...args, command, dir: path.resolve(dirArg) };
}

/** A synthetic page's dice from `seed` (a linear congruential generator): a number in [0, 1), a member of a list, an
 * integer in [lo, hi]. The same seed gives the same pages. */
export function seeded(seed) {
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = (list) => list[Math.floor(random() * list.length)];
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  return { random, pick, int };
}

/** An SVG page `width` x `height` of white holding `body`, drawn by sharp (librsvg) into the PNG `file`. */
export async function whitePage(sharp, width, height, body, file) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="white"/>${body}</svg>`;
  await sharp(Buffer.from(svg)).png().toFile(file);
}

/** PDFs named by the inputs: files as given, folders expanded to their *.pdf in name order. */
export function pdfsIn(inputs) {
  return inputs.flatMap((p) =>
    statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => f.endsWith(".pdf"))
          .sort()
          .map((f) => path.join(p, f))
      : [p],
  );
}

/** A process's resident memory now and its peak (VmRSS, VmHWM) in MiB, or undefined once it is gone. */
export function procMemory(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/status`, "utf8");
    return { rss: Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? NaN) / 1024, hwm: Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? NaN) / 1024 };
  } catch {
    return undefined;
  }
}

/** Calls `onEvent` with each JSON line a stream writes (`ocr parse --jsonl`), skipping lines that are not JSON. */
export function onJsonLines(stream, onEvent) {
  let buffered = "";
  stream.on("data", (d) => {
    buffered += d;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      let event;
      try {
        event = JSON.parse(line);
      } catch {
        continue;
      }
      onEvent(event);
    }
  });
}

/** The page cap a bench run recorded (settings.maxTokens: a number, or "model" for the model's own, as ocr parse uses it), for its report. */
export function pageCapLabel(maxTokens) {
  return maxTokens === "model" ? "the model's" : String(maxTokens);
}

/**
 * The PNG images of `base`/img, by name without ".png" in name order, parsed by `bin` in one `ocr parse --threads 1`
 * batch (run inside img/, so that the outputs, which mirror the inputs' folders, are `base`/ours/NAME.md).
 */
export function parseImages(bin, base) {
  const names = readdirSync(path.join(base, "img"))
    .filter((f) => f.endsWith(".png"))
    .sort()
    .map((f) => f.slice(0, -4));
  execFileSync(process.execPath, [bin, "parse", ...names.map((n) => `${n}.png`), "--threads", "1", "-o", "../ours", "--quiet"], {
    cwd: path.join(base, "img"),
    stdio: ["ignore", "ignore", "inherit"],
  });
  return names;
}

/**
 * A probe's engines over its pages: `base`/img parsed by `bin` (parseImages) and, where `tesseract`, read by Tesseract
 * in `langOf(name)` (tesseractOnce). The pages' names, and per engine its name and where it left a page's text.
 */
export function probeEngines(bin, base, tesseract, langOf) {
  const names = parseImages(bin, base);
  const engines = [["ours", (n) => path.join(base, "ours", `${n}.md`)]];
  if (tesseract) {
    for (const n of names) tesseractOnce(path.join(base, "img", `${n}.png`), path.join(base, "tesseract", n), langOf(n));
    engines.push(["tesseract", (n) => path.join(base, "tesseract", `${n}.txt`)]);
  }
  return { names, engines };
}

/** Tesseract 5 (`--psm 3`, `-l lang`, one thread) reads `png` into `out`.txt, unless a run before left that file. */
export function tesseractOnce(png, out, lang) {
  if (existsSync(`${out}.txt`)) return;
  mkdirSync(path.dirname(out), { recursive: true });
  execFileSync("tesseract", [png, out, "--psm", "3", "-l", lang], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, OMP_THREAD_LIMIT: "1" },
  });
}
