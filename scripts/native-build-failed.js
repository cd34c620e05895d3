// Runs when `npm ci` could not build the native decoder: says what is missing and what to run, then lets the install finish.
const lines = [
  "",
  "ocr: the native decoder (build/native/Release/ocr_decoder.node, and the bench/test addon ocr_bench.node) was NOT built.",
  "  It needs cmake (>= 3.15) and a C++17 compiler (g++ or clang++). On Debian/Ubuntu:",
  "    sudo apt-get install -y cmake g++",
  "  then, in the package folder:",
  "    npx cmake-js compile --directory native --out build/native",
  "  (or `npm rebuild ocr` where the package is installed).",
  "  Until then `ocr parse --engine text` still works for PDFs with a text layer; the model engine reports this error.",
  "",
];
process.stderr.write(lines.join("\n") + "\n");
