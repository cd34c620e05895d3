// The command list: importing a file registers its command. Add a command with one import line.
import "./parse.js";
import "./serve.js";
import "./render.js";
import "./info.js";
import "./bench-decoder.js";
import "./bench-attention.js";
import "./bench-input.js";
import "./bench-parse.js";
import "./bench-serve.js";
import "./bench.js";
import "./models.js";
