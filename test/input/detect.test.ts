// Content sniffing recognises each format by its bytes and rejects look-alikes.
import { describe, expect, it } from "vitest";
import { describeUnknown, sniffKind } from "../../src/input/detect.js";
import { tableAs, tablePng } from "../helpers/images.js";
import { makePdf } from "../helpers/pdf.js";

describe("sniffKind", () => {
  it("recognises real files of every supported format", async () => {
    expect(sniffKind(makePdf())).toBe("pdf");
    expect(sniffKind(tablePng())).toBe("png");
    expect(sniffKind(await tableAs("jpeg"))).toBe("jpeg");
    expect(sniffKind(await tableAs("webp"))).toBe("webp");
    expect(sniffKind(await tableAs("tiff"))).toBe("tiff");
    expect(sniffKind(await tableAs("gif"))).toBe("gif");
    expect(sniffKind(await tableAs("avif"))).toBe("avif");
  });

  it("accepts a PDF header after leading junk, as PDF readers do", () => {
    expect(sniffKind(Buffer.concat([Buffer.from("garbage\n"), makePdf()]))).toBe("pdf");
  });

  it("rejects text, empty input and truncated signatures", () => {
    expect(sniffKind(Buffer.from("hello, I am a text file named .pdf\n"))).toBeUndefined();
    expect(sniffKind(Buffer.alloc(0))).toBeUndefined();
    expect(sniffKind(Buffer.from([0x89, 0x50, 0x4e]))).toBeUndefined();
    expect(sniffKind(Buffer.from("RIFF\0\0\0\0WAVEfmt "))).toBeUndefined();
  });

  it("describes unknown content for error messages", () => {
    expect(describeUnknown(Buffer.from("plain words\n"))).toMatch(/text file/);
    expect(describeUnknown(Buffer.from([0, 1, 2, 3, 250, 0]))).toMatch(/unrecognised binary/);
  });
});
