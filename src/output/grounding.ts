// Grounded model output (<|ref|>label<|/ref|><|det|>[[x0,y0,x1,y1]]<|/det|> then content) → blocks.
import type { Block } from "./schema.js";

/** DeepSeek-OCR writes coordinates on a 0–999 grid over the original page. */
export const GROUNDING_GRID = 999;

const REF = /<\|ref\|>([\s\S]*?)<\|\/ref\|>\s*<\|det\|>([\s\S]*?)<\|\/det\|>/g;

/** Maps DeepSeek-OCR labels to our block types; unknown labels pass through as they are. */
const LABEL_TYPES: Record<string, string> = {
  title: "heading",
  sub_title: "heading",
  text: "paragraph",
  table: "table",
  table_caption: "caption",
  image: "figure",
  image_caption: "caption",
  figure: "figure",
  equation: "formula",
  formula: "formula",
  list: "list-item",
  code: "code",
};

function parseBoxes(det: string): [number, number, number, number][] {
  try {
    const value = JSON.parse(det.trim()) as unknown;
    if (!Array.isArray(value)) return [];
    const boxes = (Array.isArray(value[0]) ? value : [value]) as unknown[];
    return boxes.filter(
      (b): b is [number, number, number, number] =>
        Array.isArray(b) && b.length === 4 && b.every((n) => typeof n === "number" && Number.isFinite(n)),
    );
  } catch {
    return [];
  }
}

/**
 * Splits a page of grounded output into blocks with boxes scaled to page pixels, and returns
 * the Markdown with the grounding tags removed. Text without tags becomes one untyped block.
 */
export function parseGroundedOutput(raw: string, pageWidth: number, pageHeight: number): { markdown: string; blocks: Block[] } {
  const blocks: Block[] = [];
  const pieces: string[] = [];
  const matches = [...raw.matchAll(REF)];
  const leading = raw.slice(0, matches[0]?.index ?? raw.length).trim();
  if (leading) {
    blocks.push({ type: matches.length ? "other" : "paragraph", text: leading, bbox: null });
    pieces.push(leading);
  }
  matches.forEach((match, i) => {
    const start = match.index! + match[0].length;
    const end = matches[i + 1]?.index ?? raw.length;
    const text = raw.slice(start, end).trim();
    const label = match[1]!.trim();
    const box = parseBoxes(match[2]!)[0];
    const clamp = (v: number, max: number) => Math.min(max, Math.max(0, v));
    const bbox: Block["bbox"] = box
      ? [
          Math.round(clamp((box[0] / GROUNDING_GRID) * pageWidth, pageWidth)),
          Math.round(clamp((box[1] / GROUNDING_GRID) * pageHeight, pageHeight)),
          Math.round(clamp((box[2] / GROUNDING_GRID) * pageWidth, pageWidth)),
          Math.round(clamp((box[3] / GROUNDING_GRID) * pageHeight, pageHeight)),
        ]
      : null;
    const type = LABEL_TYPES[label] ?? label;
    const block: Block = { type, text, bbox };
    if (type === "heading") block.level = label === "title" ? 1 : 2;
    blocks.push(block);
    if (text) pieces.push(text);
  });
  return { markdown: pieces.join("\n\n"), blocks };
}
