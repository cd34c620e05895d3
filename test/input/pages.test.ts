// Page selections: syntax, resolution against a page count, canonical text.
import { describe, expect, it } from "vitest";
import { formatPageSelection, parsePageSelection, resolvePages } from "../../src/input/pages.js";

describe("page selections", () => {
  it("parses single pages, closed, open and leading ranges", () => {
    const ranges = parsePageSelection("1-3,7,10-,-2");
    expect(ranges).toEqual([
      { first: 1, last: 3 },
      { first: 7, last: 7 },
      { first: 10, last: undefined },
      { first: 1, last: 2 },
    ]);
    expect(resolvePages(ranges, 12)).toEqual([1, 2, 3, 7, 10, 11, 12]);
  });

  it("drops pages past the end and selects everything without ranges", () => {
    expect(resolvePages(parsePageSelection("4-9"), 5)).toEqual([4, 5]);
    expect(resolvePages(parsePageSelection("8"), 5)).toEqual([]);
    expect(resolvePages(undefined, 3)).toEqual([1, 2, 3]);
  });

  it("rejects malformed selections with a readable reason", () => {
    expect(() => parsePageSelection("0")).toThrow(/count from 1/);
    expect(() => parsePageSelection("5-2")).toThrow(/backwards/);
    expect(() => parsePageSelection("a-b")).toThrow(/not N, N-M/);
    expect(() => parsePageSelection("1,,2")).toThrow(/bad page selection/);
  });

  it("formats a canonical text used in settings", () => {
    expect(formatPageSelection(parsePageSelection(" 1-3 , 7,10-"))).toBe("1-3,7,10-");
    expect(formatPageSelection(undefined)).toBe("all");
  });
});
