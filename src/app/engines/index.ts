// Built-in engines: importing this registers them. The real model engine replaces "model" on import.
import "./text.js";
import "./model.js";
import "./ocr.js";
