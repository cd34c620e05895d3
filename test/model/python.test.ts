// Which Python `ocr models convert` runs: the exporter needs PyTorch and onnx, and the interpreter that has them is
// often not Debian's (a venv or conda environment first on PATH). Interpreters here are small shell scripts that
// answer the import probe the way a real one without or with the modules does.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXPORT_MODULE, findPython, pythonCandidates, pythonEnv, pythonToolsDir } from "../../src/model/convert.js";

const dir = mkdtempSync(path.join(tmpdir(), "ocr-python-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An interpreter at dir/NAME/python3 whose `-c "import torch, onnx"` succeeds or fails like CPython's. */
function interpreter(name: string, hasModules: boolean): string {
  const bin = path.join(dir, name);
  const file = path.join(bin, "python3");
  rmSync(bin, { recursive: true, force: true });
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    file,
    hasModules
      ? `#!/bin/sh\n[ "$1" = "-c" ] && exit 0\nexit 9\n`
      : `#!/bin/sh\necho 'Traceback (most recent call last):' >&2\necho "ModuleNotFoundError: No module named 'torch'" >&2\nexit 1\n`,
  );
  chmodSync(file, 0o755);
  return bin;
}

describe("the exporter's Python", () => {
  it("prefers python3 on PATH (a venv with PyTorch) to /usr/bin/python3", () => {
    const venv = interpreter("venv", true);
    expect(pythonCandidates({ PATH: venv })).toEqual(["python3", "/usr/bin/python3"]);
    expect(findPython({ PATH: `${venv}:/usr/bin:/bin` })).toBe("python3");
  });

  it("takes OCR_PYTHON alone when set, and names it when it lacks the modules", () => {
    const bare = interpreter("bare", false);
    const good = interpreter("good", true);
    expect(findPython({ PATH: `${bare}:/bin`, OCR_PYTHON: path.join(good, "python3") })).toBe(path.join(good, "python3"));
    expect(() => findPython({ PATH: `${good}:/bin`, OCR_PYTHON: path.join(bare, "python3") })).toThrow(
      /OCR_PYTHON names[\s\S]*bare\/python3: ModuleNotFoundError: No module named 'torch'/,
    );
  });

  it("says what each interpreter lacked and how to choose one when none has PyTorch", () => {
    const bare = interpreter("bare2", false);
    let message = "";
    try {
      // /usr/bin/python3 is tried second; on a machine where it has PyTorch it is the answer, which is right too
      const found = findPython({ PATH: `${bare}:/bin` });
      expect(found).toBe("/usr/bin/python3");
      return;
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain("python3: ModuleNotFoundError: No module named 'torch'");
    expect(message).toContain("/usr/bin/python3:");
    expect(message).toContain("set OCR_PYTHON");
  });

  it("runs the exporter as a module of the package's python/ folder, put first on PYTHONPATH", () => {
    const file = path.join(pythonToolsDir(), ...EXPORT_MODULE.split(".")) + ".py";
    expect(existsSync(file), file).toBe(true);
    expect(existsSync(path.join(pythonToolsDir(), "ocr_tools", "__init__.py"))).toBe(true);
    expect(pythonEnv({ PATH: "/bin" }).PYTHONPATH).toBe(pythonToolsDir());
    expect(pythonEnv({ PYTHONPATH: "/mine" }).PYTHONPATH).toBe(`${pythonToolsDir()}${path.delimiter}/mine`);
  });
});
