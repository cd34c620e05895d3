// Public surface of src/output: document schema, Markdown/JSON writers, grounding parser, atomic writes.
// (Finishing a document's pages across page breaks is layout's: src/layout/document.ts.)
export {
  DOCUMENT_SCHEMA,
  type Block,
  type BlockLine,
  type BlockTable,
  type BlockType,
  type DocumentRecord,
  type PageRecord,
} from "./schema.js";
export { continuesOverPage, documentMarkdown, escapeMarkdownInline, escapeMarkdownLineStart } from "./markdown.js";
export { GROUNDING_GRID, parseGroundedOutput } from "./grounding.js";
export { assignOutputStems, outputFileFor } from "./paths.js";
export {
  outputsUpToDate,
  renderDocumentJson,
  renderDocumentMarkdown,
  resumeKeyFileFor,
  writeDocumentOutputs,
} from "./write.js";
export { removePendingTempFiles, TEMP_PREFIX, writeFileAtomic } from "./atomic.js";
