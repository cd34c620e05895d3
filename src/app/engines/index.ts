// Built-in engines: importing this registers them ("text" here, "model" in ocr.ts).
import "./text.js";
import "./ocr.js";
import "./server.js";
