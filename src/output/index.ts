// Public surface of src/output: document schema, Markdown/JSON writers, grounding parser, atomic writes.
export { DOCUMENT_SCHEMA, type Block, type BlockLine, type BlockTable, type BlockType, type DocumentRecord, type PageRecord } from "./schema.js";
export { continuesOverPage, documentMarkdown, escapeMarkdownInline, escapeMarkdownLineStart } from "./markdown.js";
export { finishDocumentPages, markRepeatedMargins } from "./document.js";
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
