// `ocr render --layout`: a page's blocks, their roles and their reading order, drawn as SVG over the page.
import type { Block } from "../output/schema.js";

/** Stroke colour per role; roles not listed are grey. */
const ROLE_COLOURS: Record<string, string> = {
  title: "#b62324",
  heading: "#e5534b",
  paragraph: "#1f6feb",
  "list-item": "#8250df",
  table: "#1a7f37",
  code: "#9a6700",
  formula: "#bf3989",
  caption: "#0550ae",
  figure: "#116329",
  footnote: "#6e7781",
  header: "#d4a72c",
  footer: "#d4a72c",
  "page-number": "#fb8500",
};

function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c]!);
}

/**
 * SVG of `blocks` (boxes in a page of `pageWidth` × `pageHeight` pixels) over an image of `width` × `height`:
 * each block's box in its role's colour with "N role" above it (N its place in reading order, from 1), its lines
 * as thin boxes, and a path from block to block in reading order. Blocks without a box are skipped.
 */
export function layoutOverlay(blocks: readonly Block[], pageWidth: number, pageHeight: number, width: number, height: number): string {
  const sx = pageWidth ? width / pageWidth : 1,
    sy = pageHeight ? height / pageHeight : 1;
  const font = Math.max(10, Math.round(width / 90));
  const stroke = Math.max(1, Math.round(width / 800));
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">`];
  const centres: [number, number][] = [];
  blocks.forEach((block, k) => {
    if (!block.bbox) return;
    const [x0, y0, x1, y1] = [block.bbox[0] * sx, block.bbox[1] * sy, block.bbox[2] * sx, block.bbox[3] * sy].map(Math.round) as [
      number,
      number,
      number,
      number,
    ];
    const colour = ROLE_COLOURS[block.type] ?? "#57606a";
    for (const line of block.lines ?? []) {
      const [a, b, c, d] = [line.bbox[0] * sx, line.bbox[1] * sy, line.bbox[2] * sx, line.bbox[3] * sy].map(Math.round) as [
        number,
        number,
        number,
        number,
      ];
      parts.push(
        `<rect x="${a}" y="${b}" width="${c - a}" height="${d - b}" fill="none" stroke="${colour}" stroke-opacity="0.45" stroke-width="1"/>`,
      );
    }
    parts.push(
      `<rect x="${x0}" y="${y0}" width="${x1 - x0}" height="${y1 - y0}" fill="${colour}" fill-opacity="0.08" stroke="${colour}" stroke-width="${stroke * 2}"/>`,
    );
    const label = `${k + 1} ${block.type}${block.level ? ` ${block.level}` : ""}${block.marker ? ` ${block.marker}` : ""}`;
    const ly = Math.max(font, y0 - 2);
    parts.push(
      `<text x="${x0 + 2}" y="${ly}" font-family="sans-serif" font-size="${font}" fill="${colour}" stroke="#ffffff" stroke-width="3" paint-order="stroke">${escapeXml(label)}</text>`,
    );
    centres.push([Math.round((x0 + x1) / 2), Math.round((y0 + y1) / 2)]);
  });
  if (centres.length > 1) {
    parts.push(
      `<polyline points="${centres.map(([x, y]) => `${x},${y}`).join(" ")}" fill="none" stroke="#cf222e" stroke-opacity="0.6" stroke-width="${stroke * 2}"/>`,
    );
    for (const [x, y] of centres) parts.push(`<circle cx="${x}" cy="${y}" r="${stroke * 4}" fill="#cf222e" fill-opacity="0.7"/>`);
  }
  parts.push("</svg>");
  return parts.join("");
}
