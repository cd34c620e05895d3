// Tables rebuilt from where their cells sit (src/layout/table-geometry.ts), and through assemblePage.
import { describe, expect, it } from "vitest";
import { assemblePage, type PageLine } from "../../src/layout/page.js";
import type { BlockTable } from "../../src/output/schema.js";
import { tablesByGeometry } from "../../src/layout/table-geometry.js";
import { pageLine as L } from "./helpers.js";

/** The text of the cell at row r, column c (undefined where no cell starts there). */
const cellText = (t: BlockTable, r: number, c: number) => t.cells.find((x) => x.row === r && x.col === c)?.text;

// tb-pmc4776821 as the decoder wrote it: the row labels "Prior Experience" and "Medium-High/Medium" were detected
// apart from their cells and read as paragraphs, the header row got a fifth, empty cell, and the last row label
// opened a code fence that never closed
const decoded: PageLine[] = [
  L(4, 3, 80, 19, "Prior Experience"),
  L(141, 3, 165, 18, "\n\n<table><tr><td>One"),
  L(198, 3, 223, 18, "</td><td>Two"),
  L(262, 3, 327, 19, "</td><td>Three or More"),
  L(333, 4, 360, 18, "</td><td>Total</td><td>"),
  L(4, 20, 30, 34, "</td></tr><tr><td>High"),
  L(141, 20, 154, 33, "</td><td>5"),
  L(198, 21, 212, 34, "</td><td>6"),
  L(261, 20, 275, 33, "</td><td>2"),
  L(334, 20, 349, 33, "</td><td>13</td></tr></table>"),
  L(6, 36, 96, 50, "\n\nMedium-High/Medium"),
  L(141, 37, 154, 49, "\n\n<table><tr><td>4"),
  L(198, 36, 209, 49, "</td><td>8"),
  L(262, 36, 275, 50, "</td><td>5"),
  L(334, 35, 349, 49, "</td><td>17</td></tr></table>"),
  L(5, 51, 67, 66, "\n\n```\nLow/Very-Low"),
  L(141, 52, 154, 65, "\n\n<table><tr><td>3"),
  L(198, 52, 209, 65, "</td><td>1"),
  L(262, 52, 275, 65, "</td><td>2"),
  L(334, 52, 349, 65, "</td><td>6</td></tr></table>"),
];

describe("tablesByGeometry", () => {
  it("reads one table from the boxes: row labels in their rows, as many columns as the cells show", () => {
    const { blocks, markdown } = assemblePage(decoded, 400, 100);
    expect(blocks.map((b) => b.type)).toEqual(["table"]);
    const t = blocks[0]!.table!;
    expect([t.rows, t.cols]).toEqual([4, 5]);
    const cell = (r: number, c: number) => cellText(t, r, c);
    expect([0, 1, 2, 3, 4].map((c) => cell(0, c))).toEqual(["Prior Experience", "One", "Two", "Three or More", "Total"]);
    expect([0, 1, 2, 3, 4].map((c) => cell(2, c))).toEqual(["Medium-High/Medium", "4", "8", "5", "17"]);
    expect(cell(3, 0)).toBe("Low/Very-Low");
    // every member line is in the table's block, and the fence the decoder never closed is gone
    expect(blocks[0]!.lines!.length).toBe(decoded.length);
    expect(markdown).not.toContain("```");
  });

  it("leaves prose as it is", () => {
    const prose = [L(100, 100, 900, 130, "\n\nBody text"), L(100, 132, 700, 162, " goes on.")];
    const out = tablesByGeometry(prose);
    expect(out).toEqual(prose);
  });

  it("finds a table the decoder wrote as text from its cells' boxes (tb-pmc3519711: rules only above and below)", () => {
    const row = (y: number, cells: [number, number, string][]) => cells.map(([x0, x1, t]) => L(x0, y, x1, y + 12, `\n\n${t}`));
    const lines = [
      L(0, 0, 480, 12, "Table 3: Water samples before and after decontamination, by the load of Legionella found."),
      ...row(20, [
        [215, 330, "Pre-decontamination period"],
        [345, 465, "Post-decontamination period"],
        [470, 486, "Total"],
      ]),
      ...row(36, [
        [0, 150, "Number of water samples analysed"],
        [215, 330, "679 (54.538% of total)"],
        [345, 465, "566 (45.462% of total)"],
        [470, 486, "1245"],
      ]),
      ...row(52, [
        [0, 170, "Number of samples positive for Legionella spp."],
        [215, 280, "394 (58.038%)"],
        [345, 410, "242 (42.756%)"],
        [470, 486, "636"],
      ]),
      ...row(68, [
        [0, 150, "Number of samples with load values < 100 CFU/L"],
        [215, 280, "69 (17.513%)"],
        [345, 400, "14 (5.785%)"],
        [470, 486, "83"],
      ]),
    ];
    const { blocks } = assemblePage(lines, 486, 150);
    expect(blocks.map((b) => b.type)).toEqual(["caption", "table"]);
    const t = blocks[1]!.table!;
    expect([t.rows, t.cols]).toEqual([4, 4]);
    const cell = (r: number, c: number) => cellText(t, r, c);
    expect([cell(0, 1), cell(1, 1), cell(2, 2), cell(3, 3)]).toEqual([
      "Pre-decontamination period",
      "679 (54.538% of total)",
      "242 (42.756%)",
      "83",
    ]);
  });

  it("takes in a total row detected as one line or two under a table, a number in each column (tb-spreadtab-p5)", () => {
    // a 3×3 grid of figures the decoder wrote as text, and its total row set close under it: the page's detector
    // found "114" and "156 270" (5 px apart), or all three as one line
    const grid = [
      L(908, 234, 936, 258, "\n\n22"),
      L(976, 233, 1004, 259, " 54"),
      L(1044, 234, 1073, 255, " 76"),
      L(908, 258, 936, 281, " 43"),
      L(976, 257, 1004, 282, " 65"),
      L(1035, 257, 1073, 282, " 108"),
      L(907, 281, 936, 305, " 49"),
      L(976, 281, 1004, 306, " 37"),
      L(1044, 283, 1073, 307, " 86"),
    ];
    const page = (under: PageLine[]) =>
      assemblePage(
        [
          L(148, 156, 989, 184, "This example calculates the sum of each row:"),
          ...grid,
          ...under,
          L(147, 379, 963, 412, "\n\nFor people familiar with maths:"),
        ],
        1240,
        1754,
      );
    const total = page([L(894, 307, 941, 334, " 114"), L(946, 306, 1076, 335, " 156 270")]);
    const t = total.blocks.find((b) => b.type === "table")!.table!;
    expect([t.rows, t.cols]).toEqual([4, 3]);
    expect([0, 1, 2].map((c) => cellText(t, 3, c))).toEqual(["114", "156", "270"]);
    expect(total.markdown).not.toMatch(/^114/m);
    // detected as one line, it is parted the same way
    const one = page([L(894, 307, 1076, 335, " 114 156 270")]).blocks.find((b) => b.type === "table")!.table!;
    expect([0, 1, 2].map((c) => cellText(one, 3, c))).toEqual(["114", "156", "270"]);
    // a line of words under the table, or numbers that do not fall one to a column, stay out of it
    for (const under of [L(894, 307, 1076, 335, " Total 270"), L(894, 307, 950, 335, " 114 156")]) {
      const other = page([under]);
      expect(other.blocks.find((b) => b.type === "table")!.table!.rows).toBe(3);
      expect(other.markdown).toContain(under.markdown.trim());
    }
  });

  it("keeps the prose of the page column beside a table the decoder wrote out of it, though each row has cells", () => {
    const rows = Array.from({ length: 6 }, (_, k) => {
      const y = 200 + 32 * k;
      const open = k === 0 ? "\n\n<table>" : "";
      const close = k === 5 ? "</table>" : "";
      // the left column's lines follow their own leading: level with half the rows
      const prose = [0, 1, 3].includes(k)
        ? [L(100, y, 560, y + 26, `\n\nprose of the left column, line ${k + 1} of it`)]
        : [L(100, y + 16, 560, y + 42, `\n\nprose set between, line ${k + 1}`)];
      return [
        ...prose,
        L(660, y, 760, y + 26, `${open}<tr><td>\\cmd${k}`),
        L(800, y, 900, y + 26, `</td><td>${k}`),
        L(950, y, 1140, y + 26, `</td><td>what it means</td></tr>${close}`),
      ];
    }).flat();
    const { blocks } = assemblePage(rows, 1240, 1754);
    const tables = blocks.filter((b) => b.type === "table");
    expect(tables.length).toBe(1);
    expect([tables[0]!.table!.rows, tables[0]!.table!.cols]).toEqual([6, 3]);
    expect(tables[0]!.text).not.toContain("prose");
  });

  it("goes on with a table the decoder closed early when the rows under it are a grid within its width", () => {
    // tb-pmc5402779: the decoder closed the table after four rows and wrote the last three as text
    const row = (y: number, cells: string[], open = "", close = "") =>
      cells.map((t, c) =>
        L(
          [0, 150, 230, 330, 400][c]!,
          y,
          [120, 190, 320, 370, 470][c]!,
          y + 12,
          (c === 0 ? `${open}<tr><td>` : "</td><td>") + t + (c === 4 ? `</td></tr>${close}` : ""),
        ),
      );
    const text = (y: number, cells: string[]) =>
      cells.map((t, c) => L([0, 150, 230, 330, 400][c]!, y, [120, 190, 320, 370, 470][c]!, y + 12, `\n\n${t}`));
    const lines = [
      ...row(0, ["Variable", "%", "95% CI", "%", "95% CI"], "\n\n<table>"),
      ...row(16, ["Sensitivity", "39.13", "31.55 to 47.12", "37.50", "30.49 to 44.92"]),
      ...row(32, ["Specificity", "93.92", "92.68 to 95.00", "92.42", "91.18 to 93.54"]),
      ...row(48, ["Positive Likelihood Ratio", "6.43", "4.92 to 8.41", "4.95", "3.89 to 6.29"], "", "</table>"),
      ...text(64, ["Disease prevalence", "8.61", "7.37 to 9.97", "8.36", "7.23 to 9.59"]),
      ...text(80, ["Positive Predictive Value", "37.72", "30.35 to 45.54", "31.08", "25.04 to 37.63"]),
      ...text(96, ["Negative Predictive Value", "94.25", "93.04 to 95.31", "94.19", "93.07 to 95.18"]),
    ];
    const { blocks } = assemblePage(lines, 473, 120);
    expect(blocks.map((b) => b.type)).toEqual(["table"]);
    const t = blocks[0]!.table!;
    expect([t.rows, t.cols]).toEqual([7, 5]);
    expect(cellText(t, 6, 3)).toBe("94.19");
  });

  it("reads a grid beside a page column of prose on one leading as the table alone, though a header crosses the gutter", () => {
    // help-cs-d0 of the language probe: a table the decoder wrote as text in the right page column, each row level
    // with a line of the left column's prose, and the left column's running header set wider, a few pixels past
    // the gutter's middle
    const left = (k: number) => L(130, 200 + 32 * k, 612, 226 + 32 * k, `\n\nprose of the left column, its line number ${k + 1}`);
    const cells = (k: number) =>
      ["Chcete-li", "rezervaci", "zrušit,", "zvolte"].map((t, c) =>
        L(662 + 120 * c, 200 + 32 * k, 740 + 120 * c, 226 + 32 * k, `\n\n${t}${k}`),
      );
    const lines = [
      L(134, 60, 650, 80, "\n\nOtevírání a ukládání souborů na vzdálených serverech (cs)"),
      left(-3),
      left(-2),
      L(660, 120, 1140, 146, "\n\nprose of the right column above the table"),
      ...[0, 1, 2, 3, 4, 5].flatMap((k) => [left(k), ...cells(k)]),
      L(660, 420, 1140, 446, "\n\nprose of the right column under the table"),
      left(7),
    ];
    const { blocks } = assemblePage(lines, 1275, 1650);
    for (const table of blocks.filter((b) => b.type === "table")) expect(table.text).not.toContain("prose");
    expect(
      blocks
        .filter((b) => b.type !== "table")
        .map((b) => b.text)
        .join(" "),
    ).toContain("its line number 3");
  });

  it("keeps apart tables the decoder wrote in two page columns side by side", () => {
    // help-cs-d0: a small table in the left column, and a bulleted list the decoder wrote as a table in the right
    // column, level with it; prose in both columns around them
    const lines = [
      L(130, 900, 612, 926, "\n\nprose of the left column above its table"),
      L(660, 900, 1140, 926, "\n\nprose of the right column above its list"),
      L(134, 940, 250, 966, "\n\n<table><tr><td>Dialogové"),
      L(292, 940, 400, 966, "</td><td>okno"),
      L(452, 940, 560, 966, "</td><td>Vzdálené"),
      L(134, 970, 250, 996, "</td></tr><tr><td>soubory,"),
      L(292, 970, 400, 996, "</td><td>které"),
      L(452, 970, 560, 996, "</td><td>se</td></tr></table>"),
      L(665, 945, 676, 966, "\n\n<table><tr><td>•"),
      L(681, 940, 1100, 966, "</td><td>Zobrazí se dialogové okno Vzdálené soubory."),
      L(665, 975, 676, 996, "</td></tr><tr><td>-"),
      L(681, 970, 1100, 996, "</td><td>V seznamu Filtr zvolte požadovaný formát.</td></tr></table>"),
      L(130, 1010, 612, 1036, "\n\nprose of the left column under its table"),
      L(660, 1010, 1140, 1036, "\n\nprose of the right column under its list"),
    ];
    const { blocks } = assemblePage(lines, 1275, 1650);
    const tables = blocks.filter((b) => b.type === "table");
    expect(tables.length).toBe(1);
    expect([tables[0]!.table!.rows, tables[0]!.table!.cols]).toEqual([2, 3]);
    expect(tables[0]!.text).not.toContain("Zobrazí");
    // (the list, kept apart, is read as its items: page.ts, bulletItems)
    expect(blocks.filter((b) => b.type === "list-item").map((b) => b.text)).toEqual([
      "Zobrazí se dialogové okno Vzdálené soubory.",
      "V seznamu Filtr zvolte požadovaný formát.",
    ]);
  });

  it("takes no row labels from left of a ruled table's rules: they are the page column beside it", () => {
    // help-ru-d0 of the language probe: a ruled table of two rows in the right page column, a line of the left
    // column's prose level with each row, none between them
    const rules = [400, 430, 460].map((y) => ({ xMin: 655, xMax: 1145, yMin: y - 1, yMax: y + 1 }));
    const lines = [
      L(130, 300, 612, 326, "\n\nIndicates the directory or the name of the"),
      L(130, 332, 612, 358, " single document to be converted."),
      L(130, 404, 612, 426, "\n\nOpens a dialog to select the desired directory"),
      L(130, 434, 612, 456, " or document."),
      L(660, 300, 1140, 326, "\n\nIf the current document is a LibreOffice Calc"),
      L(660, 332, 1140, 358, " document or template, you can call up the Euro"),
      L(662, 404, 800, 426, "\n\n<table><tr><td>Диалоговое"),
      L(902, 404, 960, 426, "</td><td>окно"),
      L(662, 434, 800, 456, "</td></tr><tr><td>Конвертер"),
      L(902, 434, 960, 456, "</td><td>евро</td></tr></table>"),
      L(130, 500, 612, 526, "\n\nSpecifies whether all subfolders of the"),
      L(660, 500, 1140, 526, "\n\nSpecifies the currency to be converted into"),
    ];
    const table = assemblePage(lines, 1275, 1650, rules).blocks.find((b) => b.type === "table")!;
    expect([table.table!.rows, table.table!.cols]).toEqual([2, 2]);
    expect(table.text).not.toContain("dialog");
  });

  it("ends a grid spanning two page columns where the columns' prose goes on under it", () => {
    // mc-acm-p4: a table across the page, then a line of each page column level with each other right under it
    const cells = (y: number, a: string, b: string, c: string) => [
      L(470, y, 560, y + 26, `\n\n${a}`),
      L(600, y, 650, y + 26, `\n\n${b}`),
      L(690, y, 860, y + 26, `\n\n${c}`),
    ];
    const lines = [
      ...cells(200, "Command", "Number", "Comments"),
      ...cells(232, "\\author", "100", "Author"),
      ...cells(264, "\\table", "300", "For tables"),
      ...cells(296, "\\table*", "400", "For wider tables"),
      L(130, 330, 620, 356, "\n\njust to demonstrate the handling of numbering."),
      L(660, 330, 1170, 356, "\n\nFor additional information on how best to write"),
    ];
    const { blocks } = assemblePage(lines, 1240, 1754);
    const table = blocks.find((b) => b.type === "table")!;
    expect([table.table!.rows, table.table!.cols]).toEqual([4, 3]);
    expect(
      blocks
        .filter((b) => b.type !== "table")
        .map((b) => b.text)
        .join(" "),
    ).toContain("just to demonstrate");
  });

  it("finds a sparse table of measurements, its values set on some rows only (tb-pmc4840965)", () => {
    const cols = [
      [0, 110],
      [220, 262],
      [336, 380],
      [454, 486],
    ] as const;
    const row = (y: number, cells: (string | undefined)[]) =>
      cells.flatMap((t, c) =>
        t === undefined ? [] : [L(cols[c]![0], y, c === 0 ? Math.min(110, 8 * t.length) : cols[c]![1], y + 11, `\n\n${t}`)],
      );
    const rows: (string | undefined)[][] = [
      ["Variable", "Hazard ratio", "95 % CI", "p value"],
      ["Age (median)", undefined, undefined, "0.716"],
      ["<=69", "1.000"],
      [">69", "0.839", "0.310-2.268"],
      ["Gender", undefined, undefined, "0.142"],
      ["Male", "1.000"],
      ["Female", "0.426", "0.152-1.190"],
      ["Type of surgery", undefined, undefined, "0.010"],
      ["Low anterior", "1.000"],
      ["Abdominoperineal", "3.140", "0.919-10.725"],
    ];
    const lines = rows.flatMap((cells, k) => row(14 * k, cells));
    const { blocks } = assemblePage(lines, 486, 150);
    expect(blocks.map((b) => b.type)).toEqual(["table"]);
    const t = blocks[0]!.table!;
    expect([t.rows, t.cols]).toEqual([10, 4]);
    expect(cellText(t, 9, 1)).toBe("3.140");
    // the decoder wrote two of its rows as a table of their own: the grid holding them is still read whole
    const tagged = rows.flatMap((cells, k) => row(14 * k, cells));
    const male = tagged.findIndex((l) => l.markdown.includes("Male"));
    tagged[male] = { ...tagged[male]!, markdown: "\n\n<table><tr><td>Male" };
    tagged[male + 1] = { ...tagged[male + 1]!, markdown: "</td><td>1.000</td></tr>" };
    tagged[male + 2] = { ...tagged[male + 2]!, markdown: "<tr><td>Female" };
    tagged[male + 3] = { ...tagged[male + 3]!, markdown: "</td><td>0.426" };
    tagged[male + 4] = { ...tagged[male + 4]!, markdown: "</td><td>0.152-1.190</td></tr></table>" };
    const whole = assemblePage(tagged, 486, 150).blocks;
    expect(whole.map((b) => b.type)).toEqual(["table"]);
    expect([whole[0]!.table!.rows, whole[0]!.table!.cols]).toEqual([10, 4]);
    // the same rows holding whole numbers (a contents page: entries, their pages) are no table
    const contents = rows.map((cells) => cells.map((c, i) => (c === undefined || i === 0 ? c : String(10 + c.length))));
    expect(
      assemblePage(
        contents.flatMap((cells, k) => row(14 * k, cells)),
        486,
        150,
      ).blocks.some((b) => b.type === "table"),
    ).toBe(false);
  });

  it("finds no table in a page's columns: an index, a list set in three columns, a listing and its comments", () => {
    const tableTypes = (lines: PageLine[]) => assemblePage(lines, 1240, 1754).blocks.filter((b) => b.type === "table").length;
    // an index in two page columns: entries and their page numbers, a continuation line apart
    const index = Array.from({ length: 30 }, (_, k) => [
      L(100, 200 + 32 * k, 330, 226 + 32 * k, `\n\n\\entry${k}`),
      L(420, 200 + 32 * k, 560, 226 + 32 * k, `${k + 3}, ${k + 40}`),
      L(640, 200 + 32 * k, 880, 226 + 32 * k, `\n\n\\other${k}`),
      L(1000, 200 + 32 * k, 1140, 226 + 32 * k, `${2 * k + 7}`),
    ]).flat();
    index.push(L(160, 1180, 560, 1206, "\n\n101, 105, 233"), L(700, 1180, 1140, 1206, "\n\n44, 47, 300"));
    expect(tableTypes(index)).toBe(0);
    // a glossary in two page columns, each closed by a paragraph of its own: the gutter between runs on past the rows
    const glossary = Array.from({ length: 12 }, (_, k) => [
      L(100, 200 + 32 * k, 220, 226 + 32 * k, `\n\nterm${k}`),
      L(260, 200 + 32 * k, 560, 226 + 32 * k, `what term ${k} means`),
      L(660, 200 + 32 * k, 780, 226 + 32 * k, `\n\nword${k}`),
      L(820, 200 + 32 * k, 1140, 226 + 32 * k, `what word ${k} means`),
    ]).flat();
    glossary.push(L(100, 700, 560, 726, "\n\nThe terms of the left column"), L(660, 700, 1140, 726, "\n\nThe words of the right column"));
    expect(tableTypes(glossary)).toBe(0);
    // a list of words in three page columns of one width
    const list = Array.from({ length: 30 }, (_, k) =>
      [0, 1, 2].map((c) => L(100 + 340 * c, 200 + 32 * k, 100 + 340 * c + 120 + (k % 5) * 30, 226 + 32 * k, `\n\nitem${c}-${k},`)),
    ).flat();
    expect(tableTypes(list)).toBe(0);
    // code with its comments set apart: rows of two
    const code = Array.from({ length: 10 }, (_, k) => [
      L(100, 200 + 32 * k, 500, 226 + 32 * k, `\n\nx${k} = f(${k})`),
      L(700, 200 + 32 * k, 1000, 226 + 32 * k, `# step ${k}`),
    ]).flat();
    expect(tableTypes(code)).toBe(0);
  });

  it("keeps prose beside a table out of it, and leaves a table that prose runs through to the decoder", () => {
    // a two-column page: a small table in the left column (decoder tags), prose lines in the right one level with it
    const left = [
      L(100, 100, 180, 120, "\n\n<table><tr><td>a"),
      L(300, 100, 340, 120, "</td><td>1</td></tr>"),
      L(100, 124, 180, 144, "<tr><td>b"),
      L(300, 124, 340, 144, "</td><td>2</td></tr></table>"),
    ];
    const right = [L(640, 100, 1100, 120, "\n\nRight column prose"), L(640, 124, 1100, 144, " that goes on.")];
    const out = tablesByGeometry([...left, ...right]);
    expect(out.slice(4)).toEqual(right);
    expect(
      out
        .slice(0, 4)
        .map((l) => l.markdown)
        .join(""),
    ).toBe("\n\n<table><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></table>\n\n");
    // a full-width line between the two rows runs through the table: not rebuilt
    const through = [...left.slice(0, 2), L(100, 112, 900, 132, " prose across"), ...left.slice(2)];
    expect(tablesByGeometry(through)).toEqual(through);
  });

  it("closes a code fence left open before a table, and opens it again after it when a later line closes it", () => {
    const table = [
      L(100, 100, 180, 120, "\n\n<table><tr><td>a"),
      L(300, 100, 340, 120, "</td><td>1</td></tr>"),
      L(100, 124, 180, 144, "<tr><td>b"),
      L(300, 124, 340, 144, "</td><td>2</td></tr></table>"),
    ];
    const before = L(100, 60, 600, 80, "\n\n```\ncode");
    const after = L(100, 200, 600, 220, "\nmore code\n```");
    const md = tablesByGeometry([before, ...table, after])
      .map((l) => l.markdown)
      .join("");
    expect(md).toBe(
      "\n\n```\ncode\n```\n\n<table><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></table>\n\n```\n\nmore code\n```",
    );
  });
  it("leaves two page columns of prose and a listing's line numbers to the decoder, though both look like rows", () => {
    // a two-column page whose columns share their leading, which the decoder wrote as a table: rows of two lines
    const prose = "justified prose that fills its column to the edge";
    const twoColumns = Array.from({ length: 8 }, (_, k) => [
      L(100, 100 + 24 * k, 580, 120 + 24 * k, (k === 0 ? "\n\n<table>" : "") + "<tr><td>" + prose),
      L(620, 100 + 24 * k, 1100, 120 + 24 * k, "</td><td>" + prose + "</td></tr>" + (k === 7 ? "</table>" : "")),
    ]).flat();
    expect(tablesByGeometry(twoColumns)).toEqual(twoColumns);
    // a listing the decoder wrote as a table of line numbers and code
    const listing = Array.from({ length: 6 }, (_, k) => [
      L(100, 100 + 24 * k, 130, 120 + 24 * k, k === 0 ? "\n\n<table><tr><td>" + (13 + k) : "<tr><td>" + (13 + k)),
      L(160, 100 + 24 * k, 400 + 20 * k, 120 + 24 * k, "</td><td>\\hbox_set:Nn" + (k === 5 ? "</td></tr></table>" : "</td></tr>")),
    ]).flat();
    expect(tablesByGeometry(listing)).toEqual(listing);
  });

  it("takes in row labels the decoder left out, one level with each row", () => {
    const rows = [0, 1, 2, 3].map((k) => 100 + 30 * k);
    const labels = rows.map((y, k) => L(20, y, 260, y + 20, `\n\nNumber of samples with load values of class ${k}`));
    const cells = rows.flatMap((y, k) => [
      L(300, y, 380, y + 20, (k === 0 ? "\n\n<table>" : "") + `<tr><td>${10 + k}`),
      L(420, y, 470, y + 20, `</td><td>${20 + k}</td></tr>` + (k === 3 ? "</table>" : "")),
    ]);
    // reading order as the decoder had it: labels apart from their cells
    const { blocks } = assemblePage([...cells.slice(0, 4), ...labels, ...cells.slice(4)], 600, 400);
    expect(blocks.map((b) => b.type)).toEqual(["table"]);
    const t = blocks[0]!.table!;
    expect([t.rows, t.cols]).toEqual([4, 3]);
    expect(t.cells.filter((c) => c.row === 2).map((c) => c.text)).toEqual(["Number of samples with load values of class 2", "12", "22"]);
  });

  it("reads an image of a two-column table as one, its header row at the image's top included (tb-pmc5897438)", () => {
    // a 251-px crop: row names and primer sequences, no rules between, each cell detected apart
    const names = ["Tnfrsf12a sense", "Tnfrsf12a antisense", "IL6 sense", "IL6 antisense", "Col3a1 sense", "GAPDH sense"];
    const lines: PageLine[] = [L(2, 7, 45, 15, "Primer name"), L(129, 7, 208, 15, " Primer sequence (5'-3')")];
    names.forEach((n, k) => {
      const y = 24 + 11 * k;
      lines.push(L(2, y, 2 + 3 * n.length, y + 8, `\n\n${k === 0 ? "### " : ""}${n}`), L(129, y, 226, y + 8, ` ACGT${k}ACGTACGTACGTACG`));
    });
    const { blocks, markdown } = assemblePage(lines, 251, 136);
    expect(blocks.map((b) => b.type)).toEqual(["table"]);
    const t = blocks[0]!.table!;
    expect([t.rows, t.cols]).toEqual([7, 2]);
    expect([cellText(t, 0, 0), cellText(t, 0, 1)]).toEqual(["Primer name", "Primer sequence (5'-3')"]);
    expect([cellText(t, 1, 0), cellText(t, 1, 1)]).toEqual(["Tnfrsf12a sense", "ACGT0ACGTACGTACGTACG"]);
    expect(markdown.startsWith("<table>")).toBe(true);
    // the same rows set on a page, with its margins, are left to the decoder (a listing and its comments)
    const onPage = lines.map((l) => ({ ...l, box: { ...l.box, xMin: l.box.xMin * 2 + 300, xMax: l.box.xMax * 2 + 300 } }));
    expect(assemblePage(onPage, 1240, 1754).blocks.filter((b) => b.type === "table").length).toBe(0);
  });
});

describe("a ruled table whose descriptions wrap (rows from the bands between its rules)", () => {
  // a command and its syntax level with the middle of a description of two or three lines, a rule above the table and
  // under each row; the decoder wrote each line as a row of its table
  const rows: [string, string, string[]][] = [
    ["Absolute", "abs(x)", ["Gives the absolute value", "of a real number."]],
    ["Cosine", "cos(x)", ["Gives the cosine of a", "real number given in", "radians."]],
    ["Floor", "floor(x)", ["Gives the largest whole", "number below it."]],
  ];
  const ruledTable = (rows: [string, string, string[]][]) => {
    const lines: PageLine[] = [];
    const rules = [{ xMin: 90, xMax: 910, yMin: 96, yMax: 99 }];
    let y = 100;
    for (const [name, syntax, text] of rows) {
      const height = 24 * (text.length - 1) + 20;
      const middle = y + 5 + height / 2;
      lines.push(L(100, middle - 10, 220, middle + 10, "<tr><td>" + name), L(260, middle - 10, 460, middle + 10, "</td><td>" + syntax));
      text.forEach((t, k) => lines.push(L(520, y + 5 + 24 * k, 900, y + 25 + 24 * k, "</td><td>" + t + "</td></tr>")));
      y += height + 10;
      rules.push({ xMin: 90, xMax: 910, yMin: y - 2, yMax: y + 1 });
    }
    lines[0] = { ...lines[0]!, markdown: "\n\n<table>" + lines[0]!.markdown };
    lines[lines.length - 1] = { ...lines.at(-1)!, markdown: lines.at(-1)!.markdown + "</table>" };
    return { lines, rules };
  };
  const { lines, rules } = ruledTable(rows);

  it("makes a row of each band, its description's lines in one cell, top to bottom", () => {
    const t = assemblePage(lines, 1000, 1000, rules).blocks.find((b) => b.type === "table")!.table!;
    expect([t.rows, t.cols]).toEqual([3, 3]);
    rows.forEach(([name, syntax, text], r) => {
      expect([cellText(t, r, 0), cellText(t, r, 1), cellText(t, r, 2)]).toEqual([name, syntax, text.join(" ")]);
    });
  });

  it("takes every band between its rules when the decoder opened the table late, two rows before its end", () => {
    const five: [string, string, string[]][] = [
      ...rows,
      ["Round", "round(x, n)", ["Rounds a number off to", "the digits it is given."]],
      ["Sine", "sin(x)", ["Gives the sine of a", "real number in radians."]],
    ];
    const page = ruledTable(five);
    // the rows before `from` written as text (plain paragraphs), the table begun on row `from`
    const opened = (from: string): PageLine[] => {
      const cut = page.lines.findIndex((l) => l.markdown.includes(from));
      return page.lines.map((l, i) =>
        i < cut
          ? { ...l, markdown: "\n\n" + l.markdown.replace(/<[^>]+>/g, "").trim() }
          : i === cut
            ? { ...l, markdown: "\n\n<table>" + l.markdown.replace("<table>", "").trimStart() }
            : l,
      );
    };
    const table = (lines: PageLine[], withRules: boolean) =>
      assemblePage(lines, 1000, 1000, withRules ? page.rules : []).blocks.find((b) => b.type === "table")?.table;
    const t = table(opened("Round"), true)!;
    expect([t.rows, t.cols]).toEqual([5, 3]);
    five.forEach(([name, syntax, text], r) => {
      expect([cellText(t, r, 0), cellText(t, r, 1), cellText(t, r, 2)]).toEqual([name, syntax, text.join(" ")]);
    });
    // without the rules (rows of level lines) the first rows stay text: two seeded rows are no majority of five
    const plain = table(opened("Round"), false)!
      .cells.map((c) => c.text)
      .join(" | ");
    expect(plain).toContain("Round");
    expect(plain).not.toContain("Absolute");
    // and a table begun on the last band only is not grown (one band is as often a description misread as cells)
    const one = table(opened("Sine"), true)!
      .cells.map((c) => c.text)
      .join(" | ");
    expect(one).toContain("Sine");
    expect(one).not.toContain("Round");
  });

  it("takes rows from level lines without the rules, as before", () => {
    const t = assemblePage(lines, 1000, 1000).blocks.find((b) => b.type === "table")?.table;
    expect(t?.rows ?? 0).not.toBe(3);
  });

  it("keeps the level rows of a band where more than one holds several cells (two rows beside a label level with neither)", () => {
    // the rows' bands hold two rows of three cells each beside a label level with neither
    const two: PageLine[] = [];
    const bandRules = [{ xMin: 90, xMax: 910, yMin: 96, yMax: 99 }];
    for (let b = 0; b < 2; b++) {
      const top = 100 + 60 * b;
      two.push(L(100, top + 17, 160, top + 37, `${b === 0 ? "\n\n<table><tr><td>" : "<tr><td>"}G${b}`));
      for (const [k, dy] of [
        [0, 5],
        [1, 29],
      ])
        two.push(
          L(300, top + dy, 360, top + dy + 20, `</td><td>r${b}${k}a`),
          L(500, top + dy, 560, top + dy + 20, `</td><td>r${b}${k}b`),
          L(700, top + dy, 760, top + dy + 20, `</td><td>r${b}${k}c</td></tr>${b === 1 && k === 1 ? "</table>" : ""}`),
        );
      bandRules.push({ xMin: 90, xMax: 910, yMin: top + 56, yMax: top + 59 });
    }
    // as without the rules (one row a band would be 2)
    const ruled = assemblePage(two, 1000, 1000, bandRules).blocks.find((b) => b.type === "table")!.table!;
    expect(ruled).toEqual(assemblePage(two, 1000, 1000).blocks.find((b) => b.type === "table")!.table!);
    expect(ruled.rows).toBeGreaterThan(2);
  });
});
