// Downloads Debian documentation packages and unpacks them without installing: apt-get download + dpkg-deb -x.
// Usage: node scripts/corpus/fetch.mjs --out DATA/debian [PKG ...]   (default: packages.mjs's list; --out defaults to
// $OCR_DATA/debian when OCR_DATA is set)
// Reserved packages (packages.mjs DENY) are refused before anything is fetched. Packages already unpacked
// (OUT/PKG/.done) are skipped. Run `apt-get update` once before.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { dataDefault, requireData } from "../data-dir.mjs";
import { assertAllowed, DEFAULT_PACKAGES } from "./packages.mjs";

const args = { out: dataDefault("debian"), packages: [] };
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === "--out") args.out = process.argv[++i];
  else args.packages.push(process.argv[i]);
}
requireData(args.out, "--out", "debian");
const packages = (args.packages.length ? args.packages : DEFAULT_PACKAGES).map(assertAllowed);
const debs = path.join(args.out, "debs");
fs.mkdirSync(debs, { recursive: true });
for (const pkg of packages) {
  const dir = path.join(args.out, pkg);
  if (fs.existsSync(path.join(dir, ".done"))) continue;
  const started = Date.now();
  execFileSync("apt-get", ["download", pkg], { cwd: debs, stdio: ["ignore", "ignore", "inherit"] });
  const deb = fs.readdirSync(debs).find((f) => f.startsWith(pkg + "_") && f.endsWith(".deb"));
  if (!deb) throw new Error(`${pkg}: apt-get download wrote no .deb in ${debs}`);
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("dpkg-deb", ["-x", path.join(debs, deb), dir]);
  fs.rmSync(path.join(debs, deb));
  let pdfs = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (/\.pdf(\.gz)?$/i.test(e.name)) pdfs++;
    }
  };
  walk(dir);
  fs.writeFileSync(path.join(dir, ".done"), `${deb}\n`);
  process.stderr.write(`${pkg}: ${pdfs} PDFs, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}
