// Scan-like degradations of a grey page image, shared by scripts/synth/rasterise.mjs and scripts/corpus/render.mjs.
import sharp from "sharp";

/** A small seeded generator (mulberry32) with a Gaussian draw. */
export function random(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    float: (lo, hi) => lo + (hi - lo) * next(),
    gauss: () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()),
  };
}

/** Scan-like degradations of one grey page (raw, 1 channel); returns the PNG and the rotation applied. */
export async function degrade(grey, width, height, rng) {
  const ops = { rotate: rng.next() < 0.5, blur: rng.next() < 0.5, noise: rng.next() < 0.5, jpeg: rng.next() < 0.6 };
  if (!Object.values(ops).some(Boolean)) ops.jpeg = true;
  const raw = { raw: { width, height, channels: 1 } };
  let data = grey,
    rotate = 0;
  if (ops.rotate) {
    rotate = Math.round(rng.float(-0.6, 0.6) * 100) / 100;
    const turned = await sharp(data, raw).rotate(rotate, { background: "#ffffff" }).raw().toBuffer({ resolveWithObject: true });
    const left = Math.round((turned.info.width - width) / 2),
      top = Math.round((turned.info.height - height) / 2);
    data = await sharp(turned.data, { raw: { width: turned.info.width, height: turned.info.height, channels: turned.info.channels } })
      .extract({ left, top, width, height })
      .extractChannel(0)
      .raw()
      .toBuffer();
  }
  if (ops.blur) data = await sharp(data, raw).blur(rng.float(0.4, 1.1)).extractChannel(0).raw().toBuffer(); // blur alone returns sRGB
  if (ops.noise) {
    const sigma = rng.float(3, 12);
    data = Buffer.from(data);
    for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, Math.round(data[i] + sigma * rng.gauss())));
  }
  let img = sharp(data, raw);
  if (ops.jpeg) img = sharp(await img.jpeg({ quality: Math.round(rng.float(30, 75)) }).toBuffer()).greyscale();
  return { png: await img.toColourspace("b-w").png({ compressionLevel: 3 }).toBuffer(), rotate };
}

/** FNV-1a of a string: a document's own seed, independent of which other documents the folder holds. */
export function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
