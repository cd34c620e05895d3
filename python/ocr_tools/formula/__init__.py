"""The formula reader of the default bundle (src/vision/formula.ts): synthetic formulas typeset with LaTeX
(generate), the image-to-LaTeX model and its trainer (train), and the export into a bundle (export)."""
