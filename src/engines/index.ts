// Built-in engines: importing this registers them ("model", "text", "server"), each from its room.
import "./text/engine.js";
import "./model/decode.js";
import "./server/engine.js";
