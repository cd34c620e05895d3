// A born-digital test document made with pdf-lib, whose every drawn string and position is known:
// page 1 a two-column article (title across both columns, then the left column, then the right one, as TeX writes
// them), page 2 a heading, a paragraph, a ruled table, a Courier code block and a formula (Symbol: α + β = γ), page 3 a column drawn bottom to top
// (content order that jumps back up within a column). Every page has the same running header and a page number.
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from "pdf-lib";

export const W = 612,
  H = 792;
export const HEADER = "Journal of Test Documents, Vol. 3";
export const TITLE = "A Study of Two Columns";
export const LEFT = Array.from({ length: 18 }, (_, i) => `Left column line ${i + 1} with some words`);
export const RIGHT = Array.from({ length: 18 }, (_, i) => `Right column line ${i + 1} has text too`);
export const PARA = ["The results of the experiment are shown below in a table", "with three columns and rules above and below it."];
export const TABLE = [
  ["Name", "Value", "Unit"],
  ["alpha", "1.5", "metre"],
  ["beta", "22", "second"],
  ["gamma", "", "hour"],
]; // an empty cell
export const CODE = ["int main(void) {", "  return 0;", "}"];
export const UP = Array.from({ length: 12 }, (_, i) => `Upward line ${i + 1} of this column`);

export interface Drawn {
  text: string;
  x: number;
  base: number;
  size: number;
}

export async function makeFixture(): Promise<{ bytes: Uint8Array; drawn: Drawn[][] }> {
  const pdf = await PDFDocument.create();
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const mono = await pdf.embedFont(StandardFonts.Courier);
  const symbol = await pdf.embedFont(StandardFonts.Symbol);
  const drawn: Drawn[][] = [];
  const text = (page: PDFPage, list: Drawn[], s: string, x: number, base: number, size: number, font: PDFFont) => {
    page.drawText(s, { x, y: H - base, size, font, color: rgb(0, 0, 0) });
    list.push({ text: s, x, base, size });
  };
  const furniture = (page: PDFPage, list: Drawn[], n: number, body: () => void) => {
    text(page, list, HEADER, 50, 40, 9, regular);
    body();
    text(page, list, String(n), 303, 760, 9, regular);
  };
  // page 1: two columns
  {
    const page = pdf.addPage([W, H]),
      list: Drawn[] = [];
    furniture(page, list, 1, () => {
      text(page, list, TITLE, 50, 90, 18, bold);
      LEFT.forEach((s, i) => text(page, list, s, 50, 130 + i * 13, 10, regular));
      RIGHT.forEach((s, i) => text(page, list, s, 322, 130 + i * 13, 10, regular));
    });
    drawn.push(list);
  }
  // page 2: heading, paragraph, ruled table, code
  {
    const page = pdf.addPage([W, H]),
      list: Drawn[] = [];
    furniture(page, list, 2, () => {
      text(page, list, "Results", 50, 90, 13, bold);
      PARA.forEach((s, i) => text(page, list, s, 50, 115 + i * 13, 10, regular));
      const cols = [60, 200, 340];
      const top = 150;
      const rule = (y: number) => page.drawRectangle({ x: 55, y: H - y - 0.5, width: 400, height: 0.5, color: rgb(0, 0, 0) });
      rule(top);
      TABLE.forEach((row, r) => {
        if (r === 1) rule(top + 18);
        row.forEach((c, k) => {
          if (c) text(page, list, c, cols[k]!, top + 13 + r * 16, 10, regular);
        });
      });
      rule(top + 18 + 3 * 16 + 6);
      CODE.forEach((s, i) => text(page, list, s, 60, 240 + i * 12, 10, mono));
      text(page, list, "A closing sentence of the page after the code.", 50, 290, 10, regular);
      // a display formula in the Symbol font (a math font) and Helvetica
      page.drawText("α + β = γ", { x: 250, y: H - 320, size: 10, font: symbol, color: rgb(0, 0, 0) });
      text(page, list, "The last line of the page, under the formula.", 50, 345, 10, regular);
    });
    drawn.push(list);
  }
  // page 3: one column drawn from the bottom up
  {
    const page = pdf.addPage([W, H]),
      list: Drawn[] = [];
    furniture(page, list, 3, () => {
      for (let i = UP.length - 1; i >= 0; i--) text(page, list, UP[i]!, 50, 100 + i * 13, 10, regular);
    });
    drawn.push(list);
  }
  return { bytes: await pdf.save(), drawn };
}
