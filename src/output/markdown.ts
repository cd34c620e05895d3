// Markdown writer: one document's pages, in order, with page markers for multi-page documents.
import type { PageRecord } from "./schema.js";

/**
 * Joins page Markdown. Multi-page documents get an HTML comment before each page, invisible
 * when rendered, so readers (and tools) can map text back to pages.
 */
export function documentMarkdown(pages: Pick<PageRecord, "page" | "markdown">[], pageCount: number): string {
  const parts: string[] = [];
  for (const page of pages) {
    const body = page.markdown.trim();
    parts.push(pageCount > 1 ? `<!-- page ${page.page} -->\n\n${body}`.trimEnd() : body);
  }
  const text = parts.join("\n\n").trim();
  return text ? text + "\n" : "";
}

/** Escapes characters that Markdown would read as markup inside running text. */
export function escapeMarkdownInline(text: string): string {
  return text.replace(/([\\`*_[\]<>])/g, "\\$1");
}

/** Escapes a line start that Markdown would read as a heading, quote, list or rule. */
export function escapeMarkdownLineStart(text: string): string {
  return text.replace(/^(\s*)([#>+=-]|\d+[.)])(?=\s|$)/, (_m, space: string, mark: string) =>
    mark.length > 1 ? `${space}${mark.slice(0, -1)}\\${mark.slice(-1)}` : `${space}\\${mark}`,
  );
}
