// Errors raised while reading model files: each names the file and what is wrong with it.

/** A model file (model.json, weights, tokenizer, checkpoint) is missing, malformed or inconsistent. */
export class ModelFileError extends Error {
  readonly file: string;
  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super(`${file}: ${problem}`, options);
    this.name = "ModelFileError";
    this.file = file;
  }
}
