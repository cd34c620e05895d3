// `ocr models pull|convert|list|info`: get a Hugging Face checkpoint, turn it into a bundle, and inspect the model cache.
import { existsSync } from "node:fs";
import { loadBundle, type Bundle } from "../model/bundle.js";
import { convertCheckpoint } from "../model/convert.js";
import { quantizeBundle, type QuantTarget } from "../model/quantize.js";
import { ModelFileError } from "../model/errors.js";
import { pullRepository, PullError } from "../model/hub.js";
import { cacheRoot, listModels, resolveModelDir } from "../model/registry.js";
import type { ModelFamily } from "../model/schema.js";
import { visualTokenCount } from "../vision/visual-sequence.js";
import { EnvironmentError, UsageError } from "../engines/errors.js";
import { addOptions, optionsUnder } from "./options.js";
import { examples, registerCommand, type CommandContext } from "./registry.js";

function gib(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Model-file and network problems are environment errors (exit 3); bad names are usage errors (exit 2). */
function rethrow(error: unknown): never {
  if (error instanceof ModelFileError || error instanceof PullError) throw new EnvironmentError(error.message, { cause: error });
  if (error instanceof Error && /not a Hugging Face repository id/.test(error.message)) throw new UsageError(error.message);
  throw error;
}

export function describeBundle(b: Bundle): Record<string, unknown> {
  const d = b.json.decoder;
  const dtypes = new Set([...b.tensors.values()].filter((t) => t.name.startsWith("model.layers.")).map((t) => t.quant ?? t.dtype));
  const weightBytes = new Map<string, number>();
  for (const t of b.tensors.values()) weightBytes.set(t.file, (weightBytes.get(t.file) ?? 0) + t.byteLength);
  return {
    name: b.json.name,
    dir: b.dir,
    family: b.json.family,
    layout: b.json.layout,
    attention: b.json.attention,
    decoder: {
      layers: d.num_hidden_layers,
      hidden: d.hidden_size,
      heads: d.num_attention_heads,
      vocab: d.vocab_size,
      experts: d.n_routed_experts,
      expertsPerToken: d.num_experts_per_tok,
      sharedExperts: d.n_shared_experts,
      maxPositions: d.max_position_embeddings,
      parameters: b.decoderParameters,
      dtypes: [...dtypes],
    },
    vision: {
      defaultMode: b.json.vision.mode,
      modes: Object.fromEntries(
        Object.entries(b.json.vision.modes).map(([name, m]) => [
          name,
          {
            size: m.size,
            resize: m.resize,
            tiles: m.tiles ? `${m.tiles.size[0]}² tiles, ${m.tiles.min_tiles}–${m.tiles.max_tiles}` : null,
            embeddingsPerView: visualTokenCount({
              global: { rows: m.grid[0], cols: m.grid[1] },
              rowNewline: b.json.vision.row_newline,
              viewSeparator: b.json.vision.view_separator,
            }),
          },
        ]),
      ),
      lines: b.json.vision.lines ?? null,
    },
    prompts: b.json.prompts,
    decoding: b.json.decoding,
    files: [...weightBytes.entries()].map(([file, bytes]) => ({ file, bytes })),
  };
}

function formatBundle(info: Record<string, any>): string {
  const d = info.decoder;
  const lines = [
    `${info.name} (${info.family})`,
    `  folder: ${info.dir}`,
    `  decoder: ${d.layers} layers, hidden ${d.hidden}, ${d.heads} heads, ${d.experts} experts (top-${d.expertsPerToken}, ${d.sharedExperts} shared), vocab ${d.vocab}, ${d.parameters >= 1e8 ? `${(d.parameters / 1e9).toFixed(2)}B` : `${(d.parameters / 1e6).toFixed(2)}M`} parameters, ${d.dtypes.join("/")}`,
    `  attention: ${info.attention.kind}${info.attention.kind === "rswa" ? ` (window ${info.attention.window})` : ""}, layout ${info.layout}, up to ${d.maxPositions} positions`,
    `  modes (default ${info.vision.defaultMode}):`,
    ...(info.vision.lines
      ? [
          `    ${info.vision.defaultMode.padEnd(7)} one view per text line (${info.vision.lines.detector} → ${info.vision.lines.recogniser} → encoder), up to ${Object.values(info.vision.modes as Record<string, any>)[0].embeddingsPerView} embeddings per view`,
        ]
      : Object.entries(info.vision.modes as Record<string, any>).map(
          ([n, m]) =>
            `    ${n.padEnd(7)} ${m.size[0]}×${m.size[1]} ${m.resize}, ${m.embeddingsPerView} embeddings per view${m.tiles ? ` + ${m.tiles}` : ""}`,
        )),
    `  prompts: ${Object.entries(info.prompts)
      .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
      .join(", ")}`,
    ...info.files.map((f: { file: string; bytes: number }) => `  weights: ${f.file} (${gib(f.bytes)})`),
  ];
  return lines.join("\n") + "\n";
}

function progressPrinter(context: CommandContext): (e: import("../model/hub.js").PullProgress) => void {
  const tty = !!context.stderr.isTTY;
  let lastPercent = -1;
  return (e) => {
    if (e.kind === "file") {
      lastPercent = -1;
      context.stderr.write(`${e.path} (${gib(e.size)})${e.resumedFrom ? `, resuming at ${gib(e.resumedFrom)}` : ""}\n`);
    } else if (e.kind === "bytes" && tty && e.size > 0) {
      const percent = Math.floor((e.received / e.size) * 100);
      if (percent !== lastPercent) context.stderr.write(`\r  ${percent}%`);
      lastPercent = percent;
    } else if (e.kind === "done") {
      if (tty && lastPercent >= 0) context.stderr.write("\r");
      if (e.skipped) context.stderr.write(`${e.path}: already complete\n`);
    }
  };
}

registerCommand({
  name: "models",
  order: 40,
  register(program, context) {
    const models = program
      .command("models")
      .description("get, convert and inspect models (DeepSeek-OCR, Unlimited-OCR and the embedded default)")
      .addHelpText(
        "after",
        examples([
          ["ocr models pull deepseek-ai/DeepSeek-OCR", "download the checkpoint into the cache"],
          ["ocr models convert deepseek-ai/DeepSeek-OCR", "write model.json and encoder.onnx beside it"],
          ["ocr models quantize deepseek-ai/DeepSeek-OCR --to q8 --out ./deepseek-ocr-q8", "a copy with q8_0 decoder matrices"],
          ["ocr parse scan.pdf --model deepseek-ai/DeepSeek-OCR", "run it"],
        ]),
      );

    addOptions(
      models
        .command("pull")
        .description(
          `download a Hugging Face model repository into the cache (${cacheRoot(context.env)}/models); resumable; honours HF_TOKEN and HF_ENDPOINT`,
        )
        .argument("<repo>", "repository id, e.g. deepseek-ai/DeepSeek-OCR"),
      optionsUnder("models.pull."),
    ).action(async (repo: string, options: { revision: string }) => {
      try {
        const result = await pullRepository(repo, {
          revision: options.revision,
          env: context.env,
          onProgress: progressPrinter(context),
          signal: context.signal,
        });
        const fresh = result.files.filter((f) => f.downloaded).length;
        context.stderr.write(`${repo}@${result.revision}: ${result.files.length} files (${fresh} downloaded)\n`);
        context.stdout.write(result.dir + "\n");
      } catch (error) {
        rethrow(error);
      }
    });

    addOptions(
      models
        .command("convert")
        .description(
          "turn a checkpoint folder (or a pulled repo id) into a bundle: model.json + encoder.onnx; decoder weights stay in place",
        )
        .argument("<checkpoint>", "checkpoint folder or pulled repository id"),
      optionsUnder("models.convert."),
    ).action(async (checkpoint: string, options: { out?: string; name?: string; family?: string; mode?: string; force?: boolean }) => {
      const dir = resolveModelDir(checkpoint, context.env);
      if (!dir) throw new UsageError(`${checkpoint}: no such folder, and no pulled model of that name (see ocr models list)`);
      try {
        const bundle = await convertCheckpoint(dir, {
          out: options.out,
          name: options.name,
          family: options.family as ModelFamily | undefined,
          mode: options.mode,
          force: options.force,
          env: context.env,
          log: (line) => context.stderr.write(line + "\n"),
        });
        context.stderr.write(formatBundle(describeBundle(bundle)));
        context.stdout.write(bundle.dir + "\n");
      } catch (error) {
        rethrow(error);
      }
    });

    addOptions(
      models
        .command("quantize")
        .description(
          "write a copy of a bundle with block-quantised decoder matrices (q8 = q8_0, q4 = q4_1 blocks of 32); the router, norms and embeddings stay float",
        )
        .argument("<bundle>", "a bundle folder, or a name from ocr models list"),
      optionsUnder("models.quantize."),
    ).action(async (bundle: string, options: { out: string; to: QuantTarget }) => {
      const dir = resolveModelDir(bundle, context.env);
      if (!dir) throw new UsageError(`${bundle}: no such folder, and no model of that name (see ocr models list)`);
      try {
        const r = await quantizeBundle(dir, { to: options.to, out: options.out, log: (line) => context.stderr.write(line + "\n") });
        context.stderr.write(
          `${r.format}: ${r.quantized} matrices quantised, ${r.kept} tensors kept; ${gib(r.bytesIn)} -> ${gib(r.bytesOut)}\n`,
        );
        context.stdout.write(r.dir + "\n");
      } catch (error) {
        rethrow(error);
      }
    });

    addOptions(models.command("list").description("models in the cache and the embedded default"), optionsUnder("models.list.")).action(
      async (options: { json?: boolean }) => {
        const all = await listModels(context.env);
        if (options.json) {
          context.stdout.write(JSON.stringify(all, null, 2) + "\n");
          return;
        }
        if (all.length === 0) {
          context.stdout.write(`no models yet (cache: ${cacheRoot(context.env)}); try: ocr models pull deepseek-ai/DeepSeek-OCR\n`);
          return;
        }
        for (const m of all) {
          const state = m.incomplete
            ? "download incomplete (pull again to resume)"
            : m.converted
              ? `ready (${m.family})`
              : m.checkpoint
                ? "checkpoint, needs ocr models convert"
                : "unknown contents";
          context.stdout.write(
            `${m.name.padEnd(32)} ${gib(m.bytes).padStart(9)}  ${state}${m.repo ? `  [${m.repo}@${m.revision}]` : ""}\n`,
          );
        }
      },
    );

    addOptions(
      models
        .command("info")
        .description("architecture, modes, prompts and weights of a model")
        .argument("<name>", "a name from ocr models list, a repo id, or a bundle folder"),
      optionsUnder("models.info."),
    ).action(async (name: string, options: { json?: boolean }) => {
      const dir = resolveModelDir(name, context.env);
      if (!dir) throw new UsageError(`${name}: no such model (see ocr models list)`);
      if (!existsSync(`${dir}/model.json`)) {
        if (existsSync(`${dir}/config.json`))
          throw new UsageError(`${name}: a checkpoint not yet converted; run: ocr models convert ${name}`);
        throw new UsageError(`${name}: ${dir} is not a model bundle`);
      }
      try {
        const info = describeBundle(await loadBundle(dir));
        context.stdout.write(options.json ? JSON.stringify(info, null, 2) + "\n" : formatBundle(info));
      } catch (error) {
        rethrow(error);
      }
    });
  },
});
