// Typed input errors: a stable code plus a one-line reason, so the CLI can name the file and go on.

/** Why a document or path could not be used. Stable strings: they appear in JSON events. */
export type InputErrorCode =
  | "ENOENT" // path does not exist
  | "EACCES" // path exists but cannot be read
  | "EMPTY" // zero-byte file
  | "NO_DOCUMENTS" // folder or glob matched no supported documents
  | "UNSUPPORTED" // content is not a PDF or a supported image
  | "CORRUPT_PDF" // PDF structure is broken or truncated
  | "PASSWORD_REQUIRED" // encrypted PDF and no password given
  | "PASSWORD_WRONG" // encrypted PDF and the password did not open it
  | "CORRUPT_IMAGE" // image header or data cannot be decoded
  | "PAGE_RANGE" // requested pages do not exist in this document
  | "RENDER_FAILED" // a page could not be rasterised
  | "TIMEOUT" // a step of the document ran past its time budget (--page-timeout)
  | "RESOURCE_LIMIT" // the document needed more memory than its budget
  | "INTERRUPTED" // the run was interrupted while the document was being read
  | "TOO_LARGE"; // the input is larger than the size a document may have

export class InputError extends Error {
  readonly code: InputErrorCode;
  readonly path: string | undefined;
  constructor(code: InputErrorCode, message: string, path?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "InputError";
    this.code = code;
    this.path = path;
  }
}

export function isInputError(value: unknown): value is InputError {
  return value instanceof InputError;
}
