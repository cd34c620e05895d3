// Public programmatic API of the ocr package.
export const VERSION = "0.1.0";
