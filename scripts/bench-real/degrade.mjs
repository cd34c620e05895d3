// Scan-like degradation of a rendered page for the dev set's "scan300" recipe: deterministic for a seed (the
// page id), so every run and every engine reads the same pixels. Slight rotation, blur, sensor noise, JPEG
// compression, and for about a third of the pages binarisation (a fax or photocopy look). These pages are
// scan-like, not scans.
import { createHash } from "node:crypto";

/** mulberry32 seeded from sha1(seed): uniform numbers in [0, 1). */
export function rng(seed) {
  let a = createHash("sha1").update(String(seed)).digest().readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The degradation parameters a seed gives (also recorded in the benchmark's JSON). */
export function degradation(seed) {
  const r = rng(seed);
  return {
    angle: Math.round((r() * 2.4 - 1.2) * 100) / 100,
    blur: Math.round((0.5 + r() * 0.6) * 100) / 100,
    noise: Math.round(6 + r() * 10),
    jpeg: Math.round(35 + r() * 35),
    binarise: r() < 0.34 ? Math.round(140 + r() * 40) : null,
    noiseSeed: Math.floor(r() * 2 ** 31),
  };
}

/** Grey image (any format sharp reads) → degraded greyscale PNG buffer. */
export async function degrade(sharp, input, seed) {
  const p = degradation(seed);
  const { data, info } = await sharp(input)
    .greyscale()
    .rotate(p.angle, { background: { r: 255, g: 255, b: 255 } })
    .blur(p.blur)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const next = rng(p.noiseSeed);
  const channels = info.channels;
  const grey = Buffer.alloc(info.width * info.height);
  for (let i = 0; i < grey.length; i++) {
    // approximately normal noise: the sum of three uniforms, scaled to the chosen standard deviation
    const n = (next() + next() + next() - 1.5) * 2 * p.noise;
    grey[i] = Math.max(0, Math.min(255, Math.round(data[i * channels] + n)));
  }
  const jpeg = await sharp(grey, { raw: { width: info.width, height: info.height, channels: 1 } })
    .jpeg({ quality: p.jpeg })
    .toBuffer();
  let out = sharp(jpeg).greyscale();
  if (p.binarise !== null) out = out.threshold(p.binarise);
  return { png: await out.png().toBuffer(), params: p };
}
