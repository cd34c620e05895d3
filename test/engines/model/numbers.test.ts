// Decimal points restored from a page's own number format (src/engines/model/numbers.ts).
import { describe, expect, it } from "vitest";
import { decimalFormat, groupingFormat, markFormat, percentFormat, restoreDecimalPoints } from "../../../src/engines/model/numbers.js";

const row = (...cells: string[]) => `<tr>${cells.map((c) => `<td>${c}</td>`).join("")}</tr>`;

describe("restoreDecimalPoints", () => {
  const table = [
    `<table>${row("Age", "", "0716")}`,
    row(">69", "0.839", "0310 -2.268"),
    row("Female", "0426", "0.1521.190"),
    row("Grade", "1.933", "0.416-3.423"),
    `${row("T4b", "0.745", "0.172-3.223")}</table>`,
  ];

  it("reads the format from the page's well-read decimals", () => {
    expect(decimalFormat(table.join(""))).toEqual({ decimals: 3, range: "-" });
    expect(decimalFormat("0.5 and 0.25 and 0.125")).toBeUndefined();
  });

  it("puts back a lost point after a leading zero and splits two jammed decimals into a range", () => {
    const out = restoreDecimalPoints(table);
    expect(out[0]).toBe(`<table>${row("Age", "", "0.716")}`);
    expect(out[1]).toBe(row(">69", "0.839", "0.310 -2.268"));
    expect(out[2]).toBe(row("Female", "0.426", "0.152-1.190"));
    expect(out.slice(3)).toEqual(table.slice(3));
  });

  it("uses the range mark the page uses most, an en dash by default", () => {
    const dashes = ["0.101–0.202", "0.303–0.404", "0.505 0.606", "0.7070.808"];
    expect(restoreDecimalPoints(dashes).at(-1)).toBe("0.707–0.808");
  });

  it("reads a percent sign taken for 96 where the page's percentages show their decimals", () => {
    const rows = [
      row("Legionella", "394 (58.02796)", "242 (42.75696)"),
      row("type 2", "75 (19.036%)", "39 (16.116%)"),
      row("type 1", "99 (25.127%)", "23 (9.50496)"),
    ];
    expect(percentFormat(rows.join(""))).toBe(3);
    expect(restoreDecimalPoints(rows)).toEqual([
      row("Legionella", "394 (58.027%)", "242 (42.756%)"),
      rows[1],
      row("type 1", "99 (25.127%)", "23 (9.504%)"),
    ]);
    // one that lost its point as well gets it back k digits from its end; a whole percentage keeps its digits
    expect(restoreDecimalPoints([...rows, "679 (54538% of total)", "14 (578596)", "all (100%)"]).slice(3)).toEqual([
      "679 (54.538% of total)",
      "14 (5.785%)",
      "all (100%)",
    ]);
    // an integer that ends in 96 is no percentage, in a cell or in prose; only a bracketed one is ("n (p%)")
    const ints = [row("id 19", "86528396", "54939296"), "order 1234596 shipped", "(1234596 items)"];
    expect(restoreDecimalPoints([...rows, ...ints]).slice(3)).toEqual(ints);
    // two percentages are no format; a number of other decimals keeps its digits
    const few = ["12.5% and 13.5%", "(58.02796)", "3.1496 (7.25%)"];
    expect(restoreDecimalPoints(few)).toEqual(few);
  });

  it("leaves a page without that evidence alone: an invoice's numbers, codes with leading zeros, versions", () => {
    const invoice = ["Facture n° 0011 du 078", "Total 3 557,03 €", "Tél. 037 12 34"];
    expect(restoreDecimalPoints(invoice)).toEqual(invoice);
    // decimals of another length do not make a 4-digit code with a leading zero a decimal
    const mixed = ["0.5 0.25 0.75 0.33", "room 0716", "2.0101.100"];
    expect(restoreDecimalPoints(mixed)).toEqual(mixed);
    // nor does a leading zero inside a word or a longer number change
    const near = ["0.123 0.456 0.789", "ID A0716 x07161 1.0716"];
    expect(restoreDecimalPoints(near)).toEqual(near);
  });

  it("gives a number's groups the page's grouping mark where the scan read it as the decimal mark", () => {
    const money = ["$61,490.66 $36,308.94", "total $35.607.40", "net $1.096.299.12 and 1,234.5"];
    expect(markFormat(money.join("\n"))).toEqual({ group: ",", decimal: ".", decimals: 2 });
    expect(restoreDecimalPoints(money).slice(1)).toEqual(["total $35,607.40", "net $1,096,299.12 and 1,234.5"]);
    // the other way round on a page that groups with points and writes a decimal comma
    const euro = ["1.234,56 € 12.000,00 €", "Summe 3,557,03 €"];
    expect(restoreDecimalPoints(euro)[1]).toBe("Summe 3.557,03 €");
    // without the page's evidence, or where the last group is no decimals of the page's length, nothing changes
    const alone = ["version 1.100.20", "$35.607.40"];
    expect(restoreDecimalPoints(alone)).toEqual(alone);
    const other = ["$61,490.66 $36,308.94", "10.100.200.300 1.234.567"];
    expect(restoreDecimalPoints(other)).toEqual(other);
  });

  it("groups a number read whole where the page groups its thousands by spaces (fm-facture's thin spaces)", () => {
    const invoice = [row("Produit Deux", "2,00", "1000,40", "2 000,80"), row("Prix HTVA", "3 001,80"), row("Total", "3557,03")];
    expect(groupingFormat(invoice.join("\n"))).toEqual({ mark: ",", decimals: 2 });
    expect(restoreDecimalPoints(invoice)).toEqual([
      row("Produit Deux", "2,00", "1 000,40", "2 000,80"),
      row("Prix HTVA", "3 001,80"),
      row("Total", "3 557,03"),
    ]);
    // years, integers, other decimals and codes keep theirs; one grouped number decides nothing
    const page = ["2 000,80 and 3 001,80", "in 2019, 12345 items, 1234.56 $, 1234,5, IBAN BE95 0011 8359"];
    expect(restoreDecimalPoints(page)).toEqual(page);
    const one = ["1000,40 and 2 000,80"];
    expect(restoreDecimalPoints(one)).toEqual(one);
    expect(groupingFormat("12 345 678 and 1 000")).toBeUndefined();
  });
});
