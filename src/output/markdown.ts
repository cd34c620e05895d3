// Markdown writer: one document's pages, in order, with page markers for multi-page documents.
import type { PageRecord } from "./schema.js";

/** The first and last block of a page's Markdown are plain paragraphs (not a heading, list, table, code, …). */
const NOT_PARAGRAPH = /^(?:#{1,6}\s|[-*+]\s|\d{1,4}[.)]\s|>|\||<|```|\$\$|!\[|---|\*\*\*)/;

/**
 * A paragraph runs over the page break: the page's last block and the next page's first are plain paragraphs,
 * the first does not end a sentence, and the second goes on in lower case (or the first ends in a comma or hyphen).
 */
export function continuesOverPage(before: string, after: string): boolean {
  const last = before
    .trimEnd()
    .split(/\n\s*\n/)
    .pop()!
    .trim();
  const first = after
    .trimStart()
    .split(/\n\s*\n/)[0]!
    .trim();
  if (!last || !first || NOT_PARAGRAPH.test(last) || NOT_PARAGRAPH.test(first) || /[>|`$]$/.test(last)) return false;
  if (/[.!?:…]["'”’»)\]]*$/.test(last)) return false;
  return /^[\p{Ll}(,;]/u.test(first) || /[,;\-–]$/u.test(last);
}

/**
 * Joins page Markdown. Multi-page documents get an HTML comment before each page, invisible
 * when rendered, so readers (and tools) can map text back to pages. A paragraph that runs over a page break
 * (continuesOverPage) stays one paragraph, the comment inside it (a word hyphenated over the break is joined).
 */
export function documentMarkdown(pages: Pick<PageRecord, "page" | "markdown">[], pageCount: number): string {
  let text = "";
  for (const page of pages) {
    const body = page.markdown.trim();
    if (pageCount <= 1) {
      text = text && body ? `${text}\n\n${body}` : text || body;
      continue;
    }
    const marker = `<!-- page ${page.page} -->`;
    if (text && body && continuesOverPage(text, body)) {
      const hyphen = /\p{L}-$/u.test(text) && /^\p{Ll}/u.test(body);
      text = hyphen ? `${text.slice(0, -1)}${marker}${body}` : `${text} ${marker} ${body}`;
    } else {
      const part = `${marker}\n\n${body}`.trimEnd();
      text = text ? `${text}\n\n${part}` : part;
    }
  }
  text = text.trim();
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
