// A page's blocks from its lines (line-unit models): roles, boxes, running headers and footers from geometry.
import { describe, expect, it } from "vitest";
import { assemblePage, marginRoles, pageMarkdown, type PageLine } from "../../src/layout/page.js";

// an A4 page at 150 DPI; body lines 30 px high (detector boxes) every 32 px
const W = 1240,
  H = 1754;
const line = (y: number, markdown: string, x0 = 120, x1 = 1120, h = 30): PageLine => ({
  box: { xMin: x0, yMin: y, xMax: x1, yMax: y + h },
  markdown,
});
const body = (from: number, count: number, first = "\n\nBody text") =>
  Array.from({ length: count }, (_, k) => line(from + 32 * k, k === 0 ? first : ` line ${k + 1} of the paragraph`));

describe("assemblePage", () => {
  it("gives every block a role and a box in page pixels, and every line its box (issue 17: bbox null)", () => {
    const lines = [
      line(150, "## 2 Methods", 120, 400, 36),
      line(200, "\n\nWe measured the", 120, 1120),
      line(232, " things we found.", 120, 700),
      line(280, "\n\n159. The following graph", 120, 1120),
      line(312, " shows the results.", 160, 600),
      line(360, "\n\n- a bullet item", 120, 500),
      line(410, "\n\n<table><tr><td>Name</td>", 120, 300),
      line(410, "<td>Value</td></tr>", 600, 800),
      line(442, "<tr><td>x</td>", 120, 200),
      line(442, "<td>1</td></tr>", 600, 640),
      line(500, "\n\nTable 2: Values of x.", 120, 600),
      line(560, "\n\n```\nint main() {", 120, 500),
      line(592, "\n}\n```", 120, 200),
      line(650, "\n\n$$E = mc^2$$", 500, 700, 40),
    ];
    const { blocks, markdown } = assemblePage(lines, W, H);
    expect(blocks.map((b) => b.type)).toEqual(["heading", "paragraph", "list-item", "list-item", "table", "caption", "code", "formula"]);
    for (const b of blocks) {
      expect(b.bbox).not.toBeNull();
      const [x0, y0, x1, y1] = b.bbox!;
      expect(0 <= x0 && x0 < x1 && x1 <= W && 0 <= y0 && y0 < y1 && y1 <= H).toBe(true);
      expect(b.lines!.length).toBeGreaterThan(0);
    }
    expect(blocks[0]).toMatchObject({ level: 2, text: "2 Methods", bbox: [120, 150, 400, 186] });
    expect(blocks[1]).toMatchObject({ text: "We measured the things we found.", bbox: [120, 200, 1120, 262] });
    expect(blocks[1]!.lines).toEqual([
      { text: "We measured the", bbox: [120, 200, 1120, 230] },
      { text: "things we found.", bbox: [120, 232, 700, 262] },
    ]);
    // the list number is kept, in the JSON and the Markdown
    expect(blocks[2]).toMatchObject({ marker: "159.", text: "The following graph shows the results." });
    expect(blocks[3]).toMatchObject({ marker: "-", text: "a bullet item" });
    expect(blocks[4]!.table).toMatchObject({ rows: 2, cols: 2 });
    expect(blocks[4]!.table!.cells.map((c) => c.text)).toEqual(["Name", "Value", "x", "1"]);
    expect(blocks[4]!.bbox).toEqual([120, 410, 800, 472]);
    expect(blocks[6]).toMatchObject({ text: "int main() {\n}" });
    expect(blocks[7]).toMatchObject({ text: "E = mc^2" });
    expect(markdown).toContain("159. The following graph shows the results.\n- a bullet item");
    expect(markdown).toContain("<table><tr><td>Name</td><td>Value</td></tr><tr><td>x</td><td>1</td></tr></table>");
  });

  it("closes a table the page left open and drops a stray closing tag", () => {
    const lines = [
      line(200, "<table><tr><td>a</td>", 120, 300),
      line(200, "<td>b</td></tr></table></table>", 600, 800),
      line(400, "<tr><td>c</td>", 120, 300),
    ];
    // (c far below the row: right under it, the boxes would make it the table's second row, table-geometry.ts)
    const { markdown, blocks } = assemblePage(lines, W, H);
    // the row after the closed table is a table of one cell: its text
    expect(markdown).toBe("<table><tr><td>a</td><td>b</td></tr></table>\n\nc");
    expect(blocks.map((b) => b.type)).toEqual(["table", "paragraph"]);
  });

  it("reads a form's fields the model wrote as a table as lines, label and value together, each with its box", () => {
    const lines = [
      line(200, "<table><tr><td>TO:</td>", 120, 200),
      line(200, "<td>K. A. Sparrow</td></tr>", 300, 600),
      line(240, "<tr><td>FROM:</td>", 120, 220),
      line(240, "<td>I. D. Blachly</td></tr>", 300, 600),
      line(280, "<tr><td>-</td>", 120, 140),
      line(280, "<td>IPCL</td></tr></table>", 300, 400),
    ];
    const { markdown, blocks } = assemblePage(lines, W, H);
    expect(markdown).toBe("TO: K. A. Sparrow\n\nFROM: I. D. Blachly\n\n\\- IPCL");
    expect(blocks.map((b) => [b.type, b.text, b.bbox])).toEqual([
      ["paragraph", "TO: K. A. Sparrow", [120, 200, 600, 230]],
      ["paragraph", "FROM: I. D. Blachly", [120, 240, 600, 270]],
      ["paragraph", "- IPCL", [120, 280, 400, 310]],
    ]);
    // a table whose rows hold figures stays a table, "Total:" and all
    const figures = [
      line(200, "<table><tr><td>Mean:</td>", 120, 200),
      line(200, "<td>1.25</td></tr>", 300, 600),
      line(240, "<tr><td>Total:</td>", 120, 220),
      line(240, "<td>1245</td></tr></table>", 300, 600),
    ];
    expect(assemblePage(figures, W, H).blocks.map((b) => b.type)).toEqual(["table"]);
  });

  it("reads a bulleted list the model wrote as tables, a bullet cell beside each item, as list items", () => {
    const lines = [
      line(200, "<table><tr><td>•</td>", 120, 130),
      line(200, "<td>Mit Doppelklick auf ein Wort wird dieses ausgewählt.</td></tr></table>", 150, 800),
      line(240, "<table><tr><td>•</td>", 120, 130),
      line(240, "<td>Mit Einfg schalten Sie um.</td></tr></table>", 150, 600),
    ];
    const { markdown, blocks } = assemblePage(lines, W, H);
    expect(markdown).toBe("- Mit Doppelklick auf ein Wort wird dieses ausgewählt.\n- Mit Einfg schalten Sie um.");
    expect(blocks.map((b) => [b.type, b.bbox])).toEqual([
      ["list-item", [150, 200, 800, 230]],
      ["list-item", [150, 240, 600, 270]],
    ]);
    // an item's second line, beside no bullet, goes on with it
    const wrapped = [
      line(200, "<table><tr><td>•</td>", 120, 130),
      line(200, "<td>Wybierz menu Historia</td></tr>", 150, 600),
      line(240, "<tr><td>przeglądarki internetowej</td></tr></table>", 150, 700),
    ];
    expect(assemblePage(wrapped, W, H).markdown).toBe("- Wybierz menu Historia przeglądarki internetowej");
    // a table whose first column holds a bullet in one row and a label in another stays a table
    const table = [
      line(200, "<table><tr><td>•</td>", 120, 130),
      line(200, "<td>present</td></tr>", 300, 600),
      line(240, "<tr><td>A</td>", 120, 132),
      line(240, "<td>12</td></tr></table>", 300, 600),
    ];
    expect(assemblePage(table, W, H).blocks.map((b) => b.type)).toEqual(["table"]);
  });

  it("joins a line the decoder began as a heading in lower case to the one before, but not to a headline", () => {
    // the decoder's "### the council voted" under the last line of a paragraph goes on with it
    const joined = assemblePage([...body(300, 3), line(396, "\n\n### the council voted on tuesday", 120, 1120)], W, H).markdown;
    expect(joined).toContain("line 3 of the paragraph the council voted on tuesday");
    // under a headline three times its height (a first column's first line), it starts a paragraph of its own
    const lines = [
      line(200, "A path by the river", 120, 900, 90),
      line(330, "\n\n### the council voted on tuesday", 120, 500),
      ...body(362, 3, " to extend"),
    ];
    const { markdown } = assemblePage(lines, W, H);
    expect(markdown).toMatch(/^A path by the river\n\nthe council voted on tuesday to extend/);
  });

  it("tells a title by its size at the top of the page", () => {
    const lines = [line(120, "# Free software and the fine print", 120, 1000, 70), ...body(230, 6)];
    expect(assemblePage(lines, W, H).blocks.map((b) => b.type)).toEqual(["title", "paragraph"]);
  });

  it("keeps running headers, folios and footers out of the Markdown but in the blocks, with their roles", () => {
    const lines = [
      line(60, "SOFTWARE QUARTERLY", 120, 420, 26),
      line(60, "\n\n17", 1080, 1120, 26),
      ...body(160, 30),
      line(1680, "\n\nDownload date: 28 Dec 2018", 120, 500, 26),
    ];
    const { blocks, markdown } = assemblePage(lines, W, H);
    expect(blocks.map((b) => b.type)).toEqual(["header", "page-number", "paragraph", "footer"]);
    expect(blocks[0]).toMatchObject({ text: "SOFTWARE QUARTERLY", bbox: [120, 60, 420, 86] });
    expect(markdown.startsWith("Body text line 2")).toBe(true);
    expect(markdown).not.toMatch(/QUARTERLY|Download|^17|\n17/);
    expect(pageMarkdown(blocks, { keepHeaders: true })).toMatch(/^SOFTWARE QUARTERLY\n\n17\n\nBody text/);
    expect(pageMarkdown(blocks, { keepHeaders: true })).toMatch(/Download date: 28 Dec 2018$/);
  });

  it("tells a conference's running head across the page, however long, from the title under it", () => {
    // mc-confproc-p1: a 107-character head set across the page, two line pitches above the title
    const head = "Proc. of the 9th Int. Conference on Digital Audio Effects (DAFx-06), Montreal, Canada, September 18-20, 2006";
    const lines = [line(89, head, 117, 962, 30), line(182, "# TEMPLATES FOR FOUR AUTHORS", 427, 850, 30), ...body(250, 20)];
    const { blocks, markdown } = assemblePage(lines, W, H);
    expect(blocks[0]).toMatchObject({ type: "header", text: head });
    expect(markdown.startsWith("# TEMPLATES FOR FOUR AUTHORS")).toBe(true);
  });

  it("tells a running head set with its page number close above the text, a section number in it or not", () => {
    // IEEE / APA style: the head and its folio on one row, 1.7 line pitches above the first line of text (a head
    // alone needs 2); at the top of a page "5 INTERPRETING THE RESULTS" is a running head, not a footnote
    for (const head of ["SAMPLE DOCUMENT", "5 INTERPRETING THE RESULTS"]) {
      const lines = [line(100, head, 120, 520, 26), line(100, "\n\n6", 1090, 1120, 26), ...body(155, 20)];
      const { blocks } = assemblePage(lines, W, H);
      expect(blocks.map((b) => b.type)).toEqual(["header", "page-number", "paragraph"]);
      // without its folio the same row stays in the text: 1.7 pitches are not enough for a head alone
      expect(assemblePage([lines[0]!, ...lines.slice(2)], W, H).blocks[0]!.type).not.toBe("header");
    }
  });

  it("keeps a real first line of body text at the top of a single page (it follows the page's pitch)", () => {
    // a page image cropped close to its text: the first line sits in the top band, short, but the next follows at the pitch
    const lines = [line(20, "Revision history", 120, 400), ...body(52, 12, " and what changed")];
    const { blocks } = assemblePage(lines, W, 500);
    expect(blocks.every((b) => b.type === "paragraph")).toBe(true);
    expect(assemblePage(lines, W, 500).markdown.startsWith("Revision history and what changed")).toBe(true);
  });

  it("keeps the end of a paragraph run over from the previous page, even set apart from the next paragraph", () => {
    const lines = [line(150, "the licence applies to all of them.", 120, 700), ...body(230, 20)];
    expect(assemblePage(lines, W, H).blocks.map((b) => b.type)).toEqual(["paragraph", "paragraph"]);
    // in any script: a run-over line opening with a lower-case letter beyond Latin-1 (Czech, Polish)
    for (const start of ["řádků, které", "żadnej z opcji"]) {
      expect(assemblePage([line(150, start, 120, 500), ...body(230, 20)], W, H).blocks.map((b) => b.type)).toEqual([
        "paragraph",
        "paragraph",
      ]);
    }
  });

  it("keeps a footnote at the foot of the page as content (not a footer), and tells it by its small lines", () => {
    const lines = [...body(160, 30), line(1640, "\n\n1 See the manual for the full list of options.", 120, 900, 22)];
    const { blocks, markdown } = assemblePage(lines, W, H);
    expect(blocks.map((b) => b.type)).toEqual(["paragraph", "footnote"]);
    expect(markdown).toContain("See the manual");
    // a raised mark the recogniser read touching its text gets its space back (tb-spreadtab-p5 "5There is …")
    // (which the decoder wrote as a heading)
    const raised = assemblePage([...body(160, 30), line(1640, "\n\n## 5There is an exception, see page 17.", 120, 900, 22)], W, H);
    expect(raised.blocks[1]).toMatchObject({ type: "footnote", text: "5 There is an exception, see page 17." });
    expect(raised.markdown).toContain("\n\n5 There is an exception");
    // the raised mark makes its line as tall as the body's (tb-spreadtab-p5's line box is 32 px where code is 28)
    const tall = assemblePage([...body(160, 30), line(1582, "\n\n## 5There is an exception, see page 17.", 120, 430, 32)], W, H);
    expect(tall.blocks[1]).toMatchObject({ type: "footnote", text: "5 There is an exception, see page 17." });
    // a heading of the same height there that is no sentence stays one
    const heading = assemblePage([...body(160, 30), line(1582, "\n\n## 5Results", 120, 430, 32)], W, H);
    expect(heading.blocks[1]!.type).toBe("heading");
    // not in the body's text, nor where a capital does not open a word ("3D printing")
    expect(assemblePage([...body(160, 30), line(1640, "\n\n3D printing is", 120, 900, 22)], W, H).markdown).toContain("3D printing");
  });

  it("finds a page number alone under the text, and nothing in a page of a few lines", () => {
    const boxes = [...body(160, 10).map((l) => l.box), { xMin: 600, yMin: 1650, xMax: 640, yMax: 1676 }];
    const texts = [...Array(10).fill("text"), "- 3 -"];
    expect([...marginRoles(boxes, texts, H)]).toEqual([[10, "page-number"]]);
    expect(marginRoles(boxes.slice(8), texts.slice(8), H).size).toBe(0);
  });

  it("finds a page number as far in as LaTeX's A4 page sets it, and a head with its folio across the page", () => {
    // article class on A4: the folio at 83 % of the page height, under the last line of text
    const folio = [...body(160, 36), line(1450, "\n\n7", 610, 630, 26)];
    expect(assemblePage(folio, W, H).blocks.map((b) => b.type)).toEqual(["paragraph", "page-number"]);
    // book class: the head at 12 % of the page, its folio at the other edge
    const book = [line(205, "CAPITOLO 10. MESSAGGI DI ERRORE", 120, 560, 26), line(205, "\n\n22", 1090, 1120, 26), ...body(270, 30)];
    expect(assemblePage(book, W, H).blocks.map((b) => b.type)).toEqual(["header", "page-number", "paragraph"]);
    // a numbered code listing there is no head: its numbers sit beside the code, not across the page
    const listing = Array.from({ length: 30 }, (_, k) => [
      line(205 + 45 * k, `${k + 1}`, 120, 150),
      line(205 + 45 * k, "\\def\\x{y}", 170, 480),
    ]).flat();
    expect(
      marginRoles(
        listing.map((l) => l.box),
        listing.map((l) => l.markdown),
        H,
      ).size,
    ).toBe(0);
    // nor a number far up the page alone under a short last block
    expect(
      marginRoles([...body(160, 10).map((l) => l.box), { xMin: 600, yMin: 700, xMax: 640, yMax: 726 }], [...Array(10).fill("text"), "3"], H)
        .size,
    ).toBe(0);
  });

  it("tells a running head split across the page, or at its very edge, by a narrower gap", () => {
    // ACM: the conference at the left, the authors at the right, 1.7 pitches above the text (a head alone needs 2)
    const acm = [
      line(100, "Conference acronym 'XX, June 03-05, 2018", 120, 500, 26),
      line(100, "\n\nTrovato et al.", 1030, 1120, 26),
      ...body(155, 20),
    ];
    expect(assemblePage(acm, W, H).blocks.map((b) => b.type)).toEqual(["header", "header", "paragraph"]);
    // …where the decoder wrote one piece as a heading, and further down than the outermost band (mc-acm-p4 at 150 DPI,
    // its authors read after the table under the head)
    const written = [
      line(130, "Conference acronym 'XX, June 03-05, 2018", 120, 500, 26),
      line(130, "\n\n## Trovato et al.", 1030, 1120, 26),
      ...body(185, 20),
    ];
    expect(assemblePage(written, W, H).blocks.map((b) => b.type)).toEqual(["header", "header", "paragraph"]);
    // a journal's footer in the outermost band, which the decoder wrote as a heading, 1.6 pitches under the text
    const foot = [...body(160, 46), line(1660, "\n\n## MNRAS 000, 1-10 (2020)", 120, 420, 26)];
    expect(assemblePage(foot, W, H).blocks.map((b) => b.type)).toEqual(["paragraph", "footer"]);
    // higher up in the foot's band, a heading set apart from the text stays a heading
    const heading = [...body(160, 44), line(1620, "\n\n## Results", 120, 420, 26)];
    expect(assemblePage(heading, W, H).blocks.map((b) => b.type)).toEqual(["paragraph", "heading"]);
  });

  it("tells a running head opening with a lower-case letter when it is split across the page or set flush right", () => {
    // a package's name as its running head, the section at the other edge
    const pkg = [line(100, "spreadtab", 520, 640, 30), line(100, "\n\n2 BASIC FEATURES", 950, 1120, 26), ...body(190, 20)];
    expect(assemblePage(pkg, W, H).blocks.map((b) => b.type)).toEqual(["header", "header", "paragraph"]);
    // a long title set flush right over two rows, the second opening with "the"
    const title = [
      line(60, "Sample Template for Writing", 700, 1120, 26),
      line(92, "\n\nthe Working Papers of the Bank", 560, 1120, 26),
      ...body(190, 20),
    ];
    expect(assemblePage(title, W, H).blocks.map((b) => b.type)).toEqual(["header", "header", "paragraph"]);
    // …and wider, with its page number in the same box (sc-cnbpaper-p3): the folio at its end, flush right, tells it
    const wide = [
      line(60, "Sample Template for Writing", 700, 1120, 26),
      line(92, "\n\nthe Working Papers of the Czech National Bank, a Long Title Is Used 3", 330, 1120, 26),
      ...body(190, 20),
    ];
    expect(assemblePage(wide, W, H).blocks.map((b) => b.type)).toEqual(["header", "header", "paragraph"]);
    // not flush right, the same words are a paragraph run over from the page before
    const ragged = [line(92, "the Working Papers of the Czech National Bank, a Long Title Is Used 3", 330, 1000, 26), ...body(190, 20)];
    expect(assemblePage(ragged, W, H).blocks.map((b) => b.type)).toEqual(["paragraph", "paragraph"]);
  });

  it("keeps code fences balanced: a page number's line that closes one, a fence never closed", () => {
    // sc-aipguide-p2: the decoder closes the code block as the page number's line begins ("\n```\n\n2")
    const code = [...body(160, 20), line(820, "\n\n```\n\\bibliography{aipsamp}", 120, 600), line(1650, "\n```\n\n2", 600, 620, 26)];
    const page = assemblePage(code, W, H);
    expect(page.blocks.map((b) => b.type)).toEqual(["paragraph", "code", "page-number"]);
    expect(page.markdown).toContain("```\n\\bibliography{aipsamp}\n```");
    // a fence the decoder never closed closes with its block
    const open = assemblePage([...body(160, 20), line(820, "\n\n```\nfoo()", 120, 600), line(850, "\nbar()", 120, 600)], W, H);
    expect(open.markdown.endsWith("```\nfoo()\nbar()\n```")).toBe(true);
    expect(open.markdown.match(/```/g)).toHaveLength(2);
    // a fence alone at the end of a paragraph (its partner went with a table's lines) goes
    const stray = assemblePage([...body(160, 3), line(260, "\n```", 120, 300)], W, H);
    expect(stray.markdown).not.toContain("```");
  });

  it("drops a fence that closes no open block, and closes one a heading says the decoder left (issue 17)", () => {
    // fm-notedefrais: a signature read as code ("-s"), closed, then closed again as the next heading begins — the
    // second fence opened a block that swallowed the rest of the page, heading and all
    const signed = assemblePage(
      [
        ...body(160, 3),
        line(300, "\n\n```\n-s", 120, 200),
        line(340, "\n```\n\nd", 120, 140),
        line(400, "\n```\n\n## Annexes", 120, 400, 36),
        line(460, "\n\nThe receipts are attached.", 120, 900),
      ],
      W,
      H,
    );
    expect(signed.blocks.map((b) => b.type)).toEqual(["paragraph", "code", "paragraph", "heading", "paragraph"]);
    expect(signed.markdown.match(/```/g)).toHaveLength(2);
    expect(signed.markdown).toContain("## Annexes\n\nThe receipts are attached.");
    // tb-spreadtab-p5: a listing the decoder never closed, then a section heading after a blank line
    const unclosed = assemblePage(
      [
        line(160, "\n\n```\n\\begin{spreadtab}", 120, 600),
        line(192, "\na1 & b1 \\end{spreadtab}", 120, 600),
        line(260, "\n\n## 2.3 Text cells", 120, 400, 36),
        line(320, "\n\nIf you want to put only text in a cell, say so.", 120, 1000),
      ],
      W,
      H,
    );
    expect(unclosed.blocks.map((b) => b.type)).toEqual(["code", "heading", "paragraph"]);
    expect(unclosed.blocks[0]).toMatchObject({ text: "\\begin{spreadtab}\na1 & b1 \\end{spreadtab}" });
    // a fence opening a block while one is open closes it (la-huaz-p2: prose the decoder had taken for code)
    const twice = assemblePage([line(160, "\n\n```\nfoo()", 120, 600), line(220, "\n\n```\n- Az elöz hiba", 120, 600)], W, H);
    expect(twice.blocks.map((b) => [b.type, b.text])).toEqual([
      ["code", "foo()"],
      ["list-item", "Az elöz hiba"],
    ]);
    // a shell comment after a blank line is the listing's own line
    const shell = assemblePage(
      [line(160, "\n\n```\nmake", 120, 600), line(220, "\n\n# then install", 120, 600), line(252, "\nmake install\n```", 120, 600)],
      W,
      H,
    );
    expect(shell.blocks.map((b) => b.type)).toEqual(["code"]);
    expect(shell.blocks[0]!.text).toContain("# then install");
  });
  it("joins the lines of a double-spaced paragraph the decoder began one by one (hd-apa7-p3)", () => {
    const texts = [
      "Nam dui ligula, fringilla a, euismod sodales.",
      "lorem non justo. Nam lacus libero",
      "aliquet, tortor sed accumsan.",
      "Pellentesque cursus luctus mauris.",
    ];
    const spaced = (pitch: number) => [
      line(160, `\n\n${texts[0]}`, 180, 1120),
      // (ragged right: "aliquet," would not have fitted in the room this line leaves — 340 px, against 310 px at
      // the next line's mean width per character, taken 1.2 times wider)
      line(160 + pitch, `\n\n${texts[1]}`, 120, 780),
      line(160 + 2 * pitch, `\n\n${texts[2]}`, 120, 1120),
      line(160 + 3 * pitch, `\n\n${texts[3]}`, 120, 600),
      // a new paragraph: indented, after a short last line
      line(160 + 4 * pitch, "\n\nVon Davier et al. said this, too.", 180, 1120),
      line(160 + 5 * pitch, "\n\nFurther evidence comes from other sources.", 120, 700),
      // not indented, but "Nulla" would have fitted after "sources.": a paragraph of its own
      line(160 + 6 * pitch, "\n\nNulla malesuada porttitor diam.", 120, 1120),
      line(160 + 7 * pitch, "\n\n## Method", 500, 700),
      line(160 + 8 * pitch, "\n\nQuisque ullamcorper placerat ipsum.", 180, 1120),
    ];
    const double = assemblePage(spaced(64), W, H);
    expect(double.blocks.map((b) => b.type)).toEqual(["paragraph", "paragraph", "paragraph", "heading", "paragraph"]);
    expect(double.blocks[0]!.text).toBe(texts.join(" "));
    expect(double.blocks[0]!.lines).toHaveLength(4);
    expect(double.blocks[1]!.text).toBe("Von Davier et al. said this, too. Further evidence comes from other sources.");
    // set single-spaced, the decoder's paragraph breaks stand (there the gap tells them)
    expect(assemblePage(spaced(34), W, H).blocks).toHaveLength(9);
  });

  it("reads as prose what the decoder wrote as a heading but is none: a line going on, a long sentence", () => {
    const lines = [
      line(160, "\n\n## 2 Alternative descriptions", 120, 700, 36),
      line(210, "\n\nA short description may be", 120, 1120),
      line(242, "\n\n## helpful to the reader.", 120, 500),
      line(300, "\n\n## For people familiar with maths, this other example calculates the first lines of Pascal's triangle:", 120, 1120),
      line(360, "\n\n### Example:", 120, 300),
    ];
    const { blocks, markdown } = assemblePage(lines, W, H);
    expect(blocks.map((b) => b.type)).toEqual(["heading", "paragraph", "paragraph", "heading"]);
    expect(blocks[1]!.text).toBe("A short description may be helpful to the reader.");
    expect(markdown).toContain("\n\nFor people familiar with maths");
    expect(markdown).toContain("### Example:");
  });

  it("measures the pitch of close-set lines whose boxes overlap", () => {
    // boxes 30 px high every 24 px: the head is 2.2 pitches above the text, though less than two box heights
    const tight = Array.from({ length: 30 }, (_, k) => line(220 + 24 * k, k ? ` line ${k + 1}` : "Body text"));
    const lines = [line(170, "RUNNING HEAD OF THE JOURNAL", 120, 700, 26), ...tight];
    expect(assemblePage(lines, W, H).blocks.map((b) => b.type)).toEqual(["header", "paragraph"]);
  });

  it("does not take a heading at the top of the page for a running header", () => {
    const lines = [line(80, "## Introduction", 120, 420, 30), ...body(200, 20)];
    expect(assemblePage(lines, W, H).blocks.map((b) => b.type)).toEqual(["heading", "paragraph"]);
  });
});
